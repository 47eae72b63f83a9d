package nntest

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// LoadCase is a call of a model's Load that must fail: Config over Alphabet
// with Params.
type LoadCase struct {
	Name     string
	Alphabet string
	Config   string
	Params   []float64
}

// CheckLoadErrors checks that load accepts config good over the alphabet
// "ab" with nparams zero parameters, then that it refuses each of bad and
// the inputs every model's Load refuses: good with one parameter short, or
// with the last parameter NaN or infinite; and good over an empty alphabet,
// one with a repeated symbol or one holding the end marker '$'.
func CheckLoadErrors[M any](t testing.TB, load func(alphabet []rune, config json.RawMessage, params []float64) (M, error), good string, nparams int, bad ...LoadCase) {
	t.Helper()
	params := make([]float64, nparams)
	if _, err := load([]rune("ab"), json.RawMessage(good), params); err != nil {
		t.Fatalf("good config refused: %v", err)
	}
	short := params[1:]
	cases := append(slices.Clone(bad),
		LoadCase{"short params", "ab", good, short},
		LoadCase{"NaN param", "ab", good, append(slices.Clone(short), math.NaN())},
		LoadCase{"infinite param", "ab", good, append(slices.Clone(short), math.Inf(1))},
		LoadCase{"negative infinite param", "ab", good, append(slices.Clone(short), math.Inf(-1))},
		LoadCase{"empty alphabet", "", good, params},
		LoadCase{"repeated symbol", "aa", good, params},
		LoadCase{"repeated last symbol", "bb", good, params},
		LoadCase{"end marker first", "$a", good, params},
		LoadCase{"end marker last", "a$", good, params},
	)
	for _, tc := range cases {
		if _, err := load([]rune(tc.Alphabet), json.RawMessage(tc.Config), tc.Params); err == nil {
			t.Errorf("%s: accepted", tc.Name)
		}
	}
}
