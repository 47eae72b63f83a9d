package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/grammar"
)

// nearMisses is where the data leave an inferred PDA free: the strings one
// edit from a member of the training file (one symbol inserted, deleted or
// replaced) that no file trained or selected on labels, and those of them
// the PDA accepts. Random negatives are seldom one edit from a member, and
// random test strings as seldom, so an automaton can be exact on every
// held-out set and still accept aⁿbⁿ⁺¹ (docs/extraction.md); labelling
// some of these strings and training again is what tells it apart.
type nearMisses struct {
	From       string   `json:"from"`       // the training file, whose members were edited
	Members    int      `json:"members"`    // its distinct members
	Unlabelled int      `json:"unlabelled"` // their one-edit neighbours no file labels
	Accepted   int      `json:"accepted"`   // of those, the ones the PDA accepts
	Shortest   []string `json:"shortest_accepted"`
}

// keepNearMisses is how many of the shortest accepted near misses the
// report keeps.
const keepNearMisses = 5

// findNearMisses edits the members of the sets of role train and held-out
// (the training file) over alphabet, leaves out every string a set of role
// other than test holds, and runs p on the rest.
func findNearMisses(sets []namedSet, alphabet []rune, p *grammar.PDA) (*nearMisses, error) {
	nm := &nearMisses{Shortest: []string{}}
	labelled := map[string]bool{}
	var members []string
	for _, s := range sets {
		if s.role == "test" {
			continue
		}
		for _, e := range s.ex {
			if e.Label == dataset.Positive && (s.role == "train" || s.role == "held-out") {
				members = append(members, e.String)
			}
			labelled[e.String] = true
		}
		if s.role == "train" {
			nm.From = s.name
		}
	}
	slices.Sort(members)
	members = slices.Compact(members)
	nm.Members = len(members)
	var accepted []string
	var syms []int
	for _, m := range members {
		for _, n := range oneEdit([]rune(m), alphabet) {
			if labelled[n] {
				continue // labelled, or a neighbour already run
			}
			labelled[n] = true
			nm.Unlabelled++
			var err error
			if syms, err = p.AppendEncode(syms[:0], n); err != nil {
				return nil, err
			}
			if p.Run(syms) {
				accepted = append(accepted, n)
			}
		}
	}
	nm.Accepted = len(accepted)
	slices.SortFunc(accepted, shorterFirst)
	nm.Shortest = append(nm.Shortest, accepted[:min(len(accepted), keepNearMisses)]...)
	return nm, nil
}

// oneEdit returns the strings one insertion, deletion or replacement of a
// symbol of alphabet from s (with repeats, and perhaps s itself).
func oneEdit(s, alphabet []rune) []string {
	var out []string
	for i := 0; i <= len(s); i++ {
		for _, a := range alphabet {
			out = append(out, string(s[:i])+string(a)+string(s[i:]))
			if i < len(s) && a != s[i] {
				out = append(out, string(s[:i])+string(a)+string(s[i+1:]))
			}
		}
		if i < len(s) {
			out = append(out, string(s[:i])+string(s[i+1:]))
		}
	}
	return out
}

// write prints the near misses in one line.
func (nm *nearMisses) write(w io.Writer) {
	if nm.Accepted == 0 {
		fmt.Fprintf(w, "near misses: the PDA rejects all %d strings one edit from a member of %s that no data file labels\n", nm.Unlabelled, nm.From)
		return
	}
	quoted := make([]string, len(nm.Shortest))
	for i, s := range nm.Shortest {
		quoted[i] = experiment.QuoteShort(s)
	}
	fmt.Fprintf(w, "near misses: the PDA accepts %d of the %d strings one edit from a member of %s that no data file labels (the shortest: %s); the data do not decide them: label some and train again\n",
		nm.Accepted, nm.Unlabelled, nm.From, strings.Join(quoted, ", "))
}
