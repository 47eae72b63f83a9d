package dataset

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadJSONL: a JSONL dataset either reads, and writes back to lines that
// read the same, or is refused with one line naming the line.
func FuzzReadJSONL(f *testing.F) {
	for _, s := range []string{
		"{\"string\":\"aabb\",\"label\":1}\n", "{\"string\":\"ab\xffb\",\"label\":1}\n", "\n", "[1]\n",
		"{\"string\":null,\"label\":1}\n", "{\"string\":\"a\",\"label\":2}\n", "{\"string\":\"a\",\"label\":1,\"x\":0}",
		"{\"string\":\"\\ud800\",\"label\":0}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ex, err := ReadJSONL(bytes.NewReader(data), "d.jsonl")
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "d.jsonl:") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q is not one line naming the file", msg)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteJSONL(&buf, ex); err != nil {
			t.Fatal(err)
		}
		again, err := ReadJSONL(&buf, "again")
		if err != nil || len(again) != len(ex) {
			t.Fatalf("written back: %d examples, %v; want %d", len(again), err, len(ex))
		}
	})
}
