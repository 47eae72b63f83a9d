package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	var v struct {
		J int `json:"J"`
	}
	for _, c := range []struct{ in, want string }{
		{`[1]`, "want an object, not an array"},
		{`{"J": "x"}`, `field "J": want an integer, not a string`},
		{`{"J": 1.5}`, `field "J": want an integer, not number 1.5`},
		{`{"J": `, "unexpected end of JSON input"},
		{`{"J" 1}`, "invalid JSON at byte"},
	} {
		err := json.Unmarshal([]byte(c.in), &v)
		got := Text(err)
		if !strings.Contains(got, c.want) || strings.Contains(got, "Go ") || strings.Contains(got, "struct") {
			t.Errorf("%s: %q, want %q and no Go type", c.in, got, c.want)
		}
	}
}
