// Package grammartest holds reference deciders for the PDA files of
// grammar/testdata, written from the languages' definitions and not from
// their automata, for the tests of the packages that read those files.
package grammartest

// TopAccept decides the language of grammar/testdata/topaccept.yaml from its
// definition: a and b push, c cancels the last uncancelled letter (never
// more than were pushed), and a non-empty string is a member when nothing is
// left or the last letter left is an a.
func TopAccept(s string) bool {
	if s == "" {
		return false
	}
	var left []rune
	for _, r := range s {
		switch r {
		case 'a', 'b':
			left = append(left, r)
		case 'c':
			if len(left) == 0 {
				return false
			}
			left = left[:len(left)-1]
		default:
			return false
		}
	}
	return len(left) == 0 || left[len(left)-1] == 'a'
}
