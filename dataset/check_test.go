package dataset

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	long := strings.Repeat("a", 30) + strings.Repeat("b", 30)
	cases := []struct {
		ex   []Example
		want string
	}{
		{[]Example{{"ab", 1}, {"ba", 0}, {long, 1}}, ""},
		{[]Example{{"ab", 1}, {"abab", 1}}, `line 2: "abab" is labelled 1 but is not in anbn`},
		{[]Example{{"aabb", 0}}, `line 1: "aabb" is labelled 0 but is in anbn`},
		{[]Example{{"ab", 1}, {"ab", 3}}, `line 2: label 3 of "ab" is not 0 or 1`},
		{[]Example{{long, 0}}, `line 1: "aaaaaaaaaaaaaaaaaaaa"..."bbbbbbbbbb" (60 symbols) is labelled 0 but is in anbn`},
	}
	for _, c := range cases {
		err := Check(anbn(), c.ex)
		if got := errString(err); got != c.want {
			t.Errorf("Check(%v) = %s, want %s", c.ex, got, c.want)
		}
	}
	if err := Check(nil, nil); err == nil {
		t.Error("Check(nil) succeeded")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
