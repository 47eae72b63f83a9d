package extract

import (
	"runtime"
	"slices"
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
