package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/model/nspda"
)

// version is set at link time, for builds without VCS stamping
// (GOFLAGS=-buildvcs=false): go build -ldflags "-X main.version=v1.2.3".
var version = ""

// versionString is the module version and, when the binary was built from
// a checkout with VCS stamping, the revision, its time and "+dirty" for
// uncommitted changes; "devel" when nothing is known; then the Go version
// and the lock-step batch's contraction kernels in use (nspda.Kernels:
// "go", or "simd/archsimd" when built with GOEXPERIMENT=simd and run on a
// CPU with AVX-512).
func versionString() string {
	v := version
	info, ok := debug.ReadBuildInfo()
	if v == "" && ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	if v == "" {
		v = "devel"
	}
	var rev, at, dirty string
	if ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
	}
	parts := []string{v}
	if rev != "" {
		parts = append(parts, "revision "+rev+dirty)
	}
	if at != "" {
		parts = append(parts, at)
	}
	return strings.Join(parts, ", ") + " (" + runtime.Version() + ", kernels " + nspda.Kernels + ")"
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print nspda's version and the revision it was built from",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "nspda %s\n", versionString())
			return err
		},
	}
}
