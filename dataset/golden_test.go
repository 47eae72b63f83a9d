package dataset

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden pins small splits of the test languages byte for byte, so that a
// change to the protocol (and so to every data file) cannot pass unnoticed.
// Do NOT regenerate the golden files unless the protocol is changed on purpose.
func TestGolden(t *testing.T) {
	for _, lang := range testLanguages() {
		for _, split := range []string{"train", "test60"} {
			spec, _ := DefaultSpec(split)
			spec.Positives, spec.Negatives = 12, 14
			got := generateBytes(t, lang, spec, 1)
			path := filepath.Join("testdata", lang.Name+"-"+split+"-seed1.jsonl")
			if *update {
				if err := WriteFile(path, mustRead(t, got)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the split generated now:\n%s", path, got)
			}
		}
	}
}

func mustRead(t *testing.T, b []byte) []Example {
	t.Helper()
	ex, err := ReadJSONL(bytes.NewReader(b), "generated")
	if err != nil {
		t.Fatal(err)
	}
	return ex
}
