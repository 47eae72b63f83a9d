package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// newArgs are old train arguments (--flag=value) as they are given now:
// a flag train still has as it is, any other as --opt KEY=VALUE.
func newArgs(old []string) []string {
	now := newTrain().Flags()
	var out []string
	for _, a := range old {
		name, val, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if now.Lookup(name) != nil {
			out = append(out, a)
			continue
		}
		key := strings.ReplaceAll(name, "-", "_")
		for _, o := range legacyOptionFlags {
			if o.flag == name {
				key = o.key
			}
		}
		out = append(out, "--opt", key+"="+val)
	}
	return out
}

// oldValues are the values each old flag of train is tried at: 0 and 2,
// false and true, and a few words for the flags that take words.
func oldValues() []string {
	words := map[string][]string{
		"size": {"both", "small", "wide", "paper"}, "loss": {"label", "viable"}, "select-rule": {"train-first"},
		"restart-schedule": {"luby"}, "action-rule": {"", "program"}, "model": {"lstm", "nnpda", "stack-rnn"},
		"data": {"x.jsonl"}, "optimizer": {"sgd"}, "curriculum": {"2il", "il"}, "grammar": {"", "dyck2"},
		"select": {"s.jsonl"}, "algo": {"tbptt"},
	}
	var vals []string
	cmd, _ := legacyTrainCommand()
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		var vs []string
		switch f.Value.Type() {
		case "int", "float64", "uint64", "value":
			vs = []string{"0", "2"}
		case "bool":
			vs = []string{"false", "true"}
		default:
			vs = words[f.Name]
		}
		for _, v := range vs {
			vals = append(vals, "--"+f.Name+"="+v)
		}
	})
	return vals
}

// TestTrainConfigsUnchanged: every pair of old train flags, each at 0 or
// 2 (false or true, or a word), under each recipe, makes through the flags
// train has now and --opt the configuration it made through the old flags
// (legacy_test.go): the same config.json, the same key, or an error where
// there was one. Every 9th pair (with -short every 19th; all of them with
// NSPDA_ALL_PAIRS=1, about 40 s).
func TestTrainConfigsUnchanged(t *testing.T) {
	vals := oldValues()
	step := 9
	switch {
	case os.Getenv("NSPDA_ALL_PAIRS") != "":
		step = 1
	case testing.Short():
		step = 19
	}
	same, refused, n := 0, 0, 0
	for _, recipe := range []string{"default", "paper", "action", "data"} {
		for i := range vals {
			for j := i; j < len(vals); j++ {
				fi, _, _ := strings.Cut(vals[i], "=")
				fj, _, _ := strings.Cut(vals[j], "=")
				if j > i && fi == fj {
					continue
				}
				if n++; n%step != 0 {
					continue
				}
				old := []string{"--recipe=" + recipe, vals[i]}
				if j > i {
					old = append(old, vals[j])
				}
				if recipe == "data" {
					old = append(old, "--data=x.jsonl")
				}
				want, werr := legacyTrainConfig(old...)
				got, gerr := trainFlagsConfig(newArgs(old)...)
				switch {
				case (werr == nil) != (gerr == nil):
					t.Errorf("%v: error %v, was %v", newArgs(old), gerr, werr)
				case werr != nil:
					refused++
				default:
					g, _ := json.Marshal(got)
					w, _ := json.Marshal(want)
					if !bytes.Equal(g, w) || got.Key() != want.Key() {
						t.Errorf("%v:\n got %s\nwant %s", newArgs(old), g, w)
					}
					same++
				}
			}
		}
	}
	if same == 0 || refused == 0 {
		t.Fatalf("%d configurations the same, %d refused by both: the pairs do not reach both sides", same, refused)
	}
	t.Log(fmt.Sprintf("%d flag combinations: %d configurations the same, %d refused by both", same+refused, same, refused))
}
