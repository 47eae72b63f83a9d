package experiment

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nspda/nspda/dataset"
)

// TestHoldOut: the held-out strings are the longest (ties to the earlier
// line), at least one and never all, and training keeps the others, each
// set in the file's order.
func TestHoldOut(t *testing.T) {
	var ex []dataset.Example
	for i, n := range []int{3, 7, 1, 7, 5, 2, 7, 4, 6, 1} {
		ex = append(ex, dataset.Example{String: strings.Repeat("a", n), Label: i % 2})
	}
	lens := func(set []dataset.Example) []int {
		var out []int
		for _, e := range set {
			out = append(out, len(e.String))
		}
		return out
	}
	for _, tc := range []struct {
		pct         int
		train, held string
	}{
		{10, "[3 1 7 5 2 7 4 6 1]", "[7]"},
		{20, "[3 1 5 2 7 4 6 1]", "[7 7]"},
		{40, "[3 1 5 2 4 1]", "[7 7 7 6]"},
		{1, "[3 1 7 5 2 7 4 6 1]", "[7]"},
	} {
		tr, sel := holdOut(ex, tc.pct)
		if got, want := fmt.Sprint(lens(tr)), tc.train; got != want {
			t.Errorf("%d%%: training %s, want %s", tc.pct, got, want)
		}
		if got, want := fmt.Sprint(lens(sel)), tc.held; got != want {
			t.Errorf("%d%%: held out %s, want %s", tc.pct, got, want)
		}
	}
	if tr, sel := holdOut(ex[:2], 50); len(tr) != 1 || len(sel) != 1 {
		t.Errorf("two strings, 50%%: %d training, %d held out", len(tr), len(sel))
	}
}
