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
	"github.com/nspda/nspda/nn"
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

// writeModel writes an NSPDA of the given shape, every weight zero, and
// returns its path and file.
func writeModel(t *testing.T, s nspda.Shape) (string, []byte) {
	t.Helper()
	m, err := nspda.New(s, []rune("abcdefgh")[:s.L])
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.json")
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// TestLoadMemory: loading a model file allocates its bytes, the model and
// little more (not the several copies of every tensor that decoding it
// whole into slices makes).
func TestLoadMemory(t *testing.T) {
	s := nspda.Shape{Order: nspda.Second, L: 2, J: 300, A: 2}
	path, file := writeModel(t, s)
	var err error
	got := testutil.Allocated(func() { _, _, err = Load(path) })
	if err != nil {
		t.Fatal(err)
	}
	budget := uint64(len(file) + 8*s.NumParams() + 1<<20)
	t.Logf("file %d KiB, %d parameters: allocated %d KiB (budget %d KiB)", len(file)>>10, s.NumParams(), got>>10, budget>>10)
	if got > budget {
		t.Errorf("Load allocated %d KiB, more than the file and the model's parameters and 1 MiB (%d KiB)", got>>10, budget>>10)
	}
}

// TestLoadRefusesLongTensorsBeforeDecoding: a small model whose Ws holds a
// million values, or that names a million neurons, is refused having
// allocated little beyond the file.
func TestLoadRefusesLongTensorsBeforeDecoding(t *testing.T) {
	_, file := writeModel(t, nspda.Shape{Order: nspda.Third, L: 2, J: 3, A: 2})
	for _, c := range []struct{ old, new, want string }{
		{`"Ws": [`, `"Ws": [` + strings.Repeat("0,", 1<<20), "Ws has 1048657 values"},
		{`"format"`, `"neurons": [` + strings.Repeat(`"",`, 1<<20) + `""], "format"`, "1048577 neuron names for J = 3"},
	} {
		data := strings.Replace(string(file), c.old, c.new, 1)
		path := filepath.Join(t.TempDir(), "long.json")
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		var err error
		got := testutil.Allocated(func() { _, _, err = Load(path) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("Load = %v, want %q", err, c.want)
		}
		if budget := uint64(len(data) + 1<<20); got > budget {
			t.Errorf("%s: Load allocated %d KiB before refusing a %d KiB file (budget %d KiB)", c.want, got>>10, len(data)>>10, budget>>10)
		}
	}
}

// TestLoadRefusesTrailingData: data after the model's JSON value is refused,
// in a file of either format.
func TestLoadRefusesTrailingData(t *testing.T) {
	_, file := writeModel(t, nspda.Shape{Order: nspda.Third, L: 2, J: 3, A: 2})
	spec, _ := Lookup("elman")
	net, err := spec.New([]rune("ab"), nn.Options{Hidden: 2}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(t.TempDir(), "elman.json")
	if err := Save(env, net, 1); err != nil {
		t.Fatal(err)
	}
	envFile, _ := os.ReadFile(env)
	for name, b := range map[string][]byte{"nspda": file, "envelope": envFile} {
		for _, tail := range []string{"x", "{}", "\n[1]\n"} {
			path := filepath.Join(t.TempDir(), name+".json")
			if err := os.WriteFile(path, append(append([]byte(nil), b...), tail...), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "after top-level value") || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s + %q: Load = %v, want one line naming the file and the data after the model", name, tail, err)
			}
		}
		path := filepath.Join(t.TempDir(), name+"-space.json")
		if err := os.WriteFile(path, append(append([]byte(nil), b...), " \n\t"...), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Load(path); err != nil {
			t.Errorf("%s with trailing space: %v", name, err)
		}
	}
}
