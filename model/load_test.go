package model

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/internal/testutil"
	"github.com/nspda/nspda/model/nspda"
)

// TestLoadChecksSizesBeforeAllocating writes model files whose configs ask
// for huge networks but hold only a few thousand parameters: each must be
// refused with a message about the parameter count, having allocated far
// less than the network it describes.
func TestLoadChecksSizesBeforeAllocating(t *testing.T) {
	params := make([]float64, 5000)
	for _, c := range []struct{ kind, config string }{
		{"nnpda", `{"hidden": 4096, "order": 3}`},
		{"stack-rnn", `{"hidden": 4000, "stacks": 1}`},
		{"lstm", `{"hidden": 4096}`},
		{"second-order", `{"hidden": 4096}`},
	} {
		t.Run(c.kind, func(t *testing.T) {
			spec, err := Lookup(c.kind)
			if err != nil {
				t.Fatal(err)
			}
			// Complete the config with the fields the kind's defaults have,
			// so that only the sizes are wrong.
			def, err := spec.New([]rune("ab"), opts(spec, 4, map[string]any{"stacks": 1, "order": 3}), rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			cfg := map[string]any{}
			b, _ := json.Marshal(def.Config())
			if err := json.Unmarshal(b, &cfg); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(c.config), &cfg); err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(cfg)
			file, _ := json.Marshal(envelope{Format: nspda.FileFormat, Version: nspda.FileVersion, Kind: c.kind,
				Alphabet: "ab", Refine: 1, Config: raw, Params: params})
			path := filepath.Join(t.TempDir(), "m.json")
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			got := testutil.Allocated(func() { _, _, err = Load(path) })
			if err == nil || !strings.Contains(err.Error(), "parameters") {
				t.Fatalf("Load = %v, want an error about the parameter count", err)
			}
			if got > 16<<20 {
				t.Errorf("Load allocated %d MiB before refusing", got>>20)
			}
		})
	}
}
