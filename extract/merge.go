package extract

import "slices"

// maxMergeBlocks bounds the blocks merge tries to fold: it tries every pair,
// each try costing a copy of the table.
const maxMergeBlocks = 200

// blocks is the automaton after partition refinement: per block, its
// (input, top) entries and its verdicts per top (unknown where the block is
// never reached with that top or the form of acceptance leaves the verdict
// free; see explorer.acceptance).
type blocks struct {
	L     int
	table [][]entry
	acc   [][]int8
}

// merge folds blocks that are never told apart where both are defined:
// Moore's refinement keeps states reached with different tops apart
// (minimize), and an entry at a top a state is never reached with may take
// any value. Two blocks are compatible when their verdicts agree at every
// top where both are known and, at every (input, top) both define, their operations
// agree and their targets are compatible in turn. Folding compatible blocks
// keeps every reached transition and verdict, so the language is unchanged;
// which pairs are folded first is a greedy choice (the fewest blocks is an
// NP-hard problem), pairs in block order. It returns each block's
// representative. Above maxMergeBlocks blocks nothing is folded.
func (b *blocks) merge() []int {
	n := len(b.table)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	if n > maxMergeBlocks {
		return parent
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if find(parent, i) == find(parent, j) {
				continue
			}
			if t, ok := b.try(parent, i, j); ok {
				parent = t.parent
				b.table, b.acc = t.table, t.acc
			}
		}
	}
	for i := range parent {
		parent[i] = find(parent, i)
	}
	return parent
}

// trial is a copy of the merge state an attempt works on.
type trial struct {
	parent []int
	table  [][]entry
	acc    [][]int8
}

// try folds i and j and everything that forces, on a copy; ok is false at
// the first conflict. The copy shares every row it does not write (most
// tries fail at once, and a full copy per try costs O(blocks³·L²) over the
// merge: a gigabyte of garbage for 100 blocks over 8 symbols).
func (b *blocks) try(parent []int, i, j int) (trial, bool) {
	t := trial{parent: slices.Clone(parent), table: slices.Clone(b.table), acc: slices.Clone(b.acc)}
	owned := map[int]bool{}
	queue := [][2]int{{i, j}}
	for len(queue) > 0 {
		x, y := find(t.parent, queue[0][0]), find(t.parent, queue[0][1])
		queue = queue[1:]
		if x == y {
			continue
		}
		if !owned[x] {
			owned[x] = true
			t.table[x], t.acc[x] = slices.Clone(t.table[x]), slices.Clone(t.acc[x])
		}
		for k, v := range t.acc[y] {
			switch u := &t.acc[x][k]; {
			case v == unknown:
			case *u == unknown:
				*u = v
			case *u != v:
				return t, false
			}
		}
		for c, ey := range t.table[y] {
			ex := &t.table[x][c]
			switch {
			case !ey.set:
			case !ex.set:
				*ex = ey
			case ex.to < 0 || ey.to < 0:
				if ex.to != ey.to {
					return t, false // a missing transition against a live one
				}
			case ex.op != ey.op:
				return t, false
			default:
				queue = append(queue, [2]int{ex.to, ey.to})
			}
		}
		t.parent[y] = x
	}
	return t, true
}

// find returns i's representative.
func find(parent []int, i int) int {
	for parent[i] != i {
		i = parent[i]
	}
	return i
}
