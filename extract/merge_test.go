package extract

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestMergeCopiesOnlyWhatItWrites: a try that fails copies the rows it
// wrote, not the whole table: 100 blocks over 8 symbols, half accepting,
// cost 430 MB of copies when each try cloned every row, and the merge
// still folds the blocks it can (here into one accepting, one rejecting).
func TestMergeCopiesOnlyWhatItWrites(t *testing.T) {
	const n, L = 100, 8
	b := &blocks{L: L, table: make([][]entry, n), acc: make([][]int8, n)}
	for c := range n {
		b.table[c] = make([]entry, L*(L+1))
		b.acc[c] = slices.Repeat([]int8{unknown}, L+1)
		b.acc[c][L] = int8(c % 2)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rep := b.merge()
	runtime.ReadMemStats(&after)
	if got, budget := after.TotalAlloc-before.TotalAlloc, uint64(32<<20); got > budget {
		t.Errorf("merging %d blocks over %d symbols allocated %d bytes, budget %d", n, L, got, budget)
	}
	for c, r := range rep {
		if r != c%2 {
			t.Fatalf("block %d folded into %d, want %d", c, r, c%2)
		}
	}
}

// TestBuildTableBound: blocks whose table would be larger than any PDA
// grammar.New builds are refused before the table is laid out (64 blocks
// over 256 symbols: 100 MB of cells).
func TestBuildTableBound(t *testing.T) {
	const n, L = 64, 256
	e := &explorer{L: L, states: make([]State, n), tops: make([][]pair, n)}
	class := make([]int, n)
	verdicts := make([][]int8, n)
	for q := range class {
		class[q] = q
		verdicts[q] = slices.Repeat([]int8{unknown}, L+1)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := e.build("x", class, n, verdicts, ByState)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "transition-table cells") {
		t.Errorf("error %v, want the table bound named", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("refusing %d blocks over %d symbols allocated %d bytes", n, L, got)
	}
}
