package dataset

import (
	"testing"

	"github.com/nspda/nspda/grammar"
)

// TestBuiltins runs the whole protocol, every split at full size, over the
// paper's five languages.
func TestBuiltins(t *testing.T) {
	for _, name := range []string{"palindrome", "anbn", "anbncbmam", "anmbncm", "dyck2"} {
		lang, ok := grammar.Builtin(name)
		if !ok {
			t.Fatalf("no built-in language %s", name)
		}
		t.Run(name, func(t *testing.T) { runAllSplits(t, lang, 2024) })
	}
}
