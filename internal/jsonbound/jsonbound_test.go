package jsonbound

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValues(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{`0`, 0},
		{`[]`, 0},
		{` [ ] `, 0},
		{`[1]`, 1},
		{`[1, 2,3]`, 3},
		{`{"a": [1, {}], "b,": "x,]"}`, 4},
		{`[{}, {}, {}]`, 3},
		{`{"s": "\"[,"}`, 1},
	} {
		got, ok := Values([]byte(c.in))
		if !ok || got != c.want {
			t.Errorf("Values(%s) = %d, %v, want %d", c.in, got, ok, c.want)
		}
	}
	if _, ok := Values([]byte(`[1,`)); ok {
		t.Error("invalid JSON counted")
	}
}

func TestFloats(t *testing.T) {
	var v struct {
		A Floats `json:"a"`
		B Floats `json:"b"`
		C Floats `json:"c"`
	}
	if err := json.Unmarshal([]byte(`{"a": [1, -2.5e3 ,3], "b": null, "c": [ ]}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A.Len() != 3 || v.B.Len() != 0 || v.C.Len() != 0 {
		t.Fatalf("lengths %d %d %d, want 3 0 0", v.A.Len(), v.B.Len(), v.C.Len())
	}
	dst := make([]float64, 3)
	got, err := v.A.Decode(dst)
	if err != nil || &got[0] != &dst[0] || got[1] != -2500 {
		t.Fatalf("Decode = %v, %v", got, err)
	}
	if _, err := v.A.Decode(make([]float64, 2)); err == nil {
		t.Error("decoded 3 numbers into 2 places")
	}
	for _, bad := range []string{`{"a": [[1]]}`, `{"a": ["1,2"]}`, `{"a": {}}`, `{"a": 1}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	if err := json.Unmarshal([]byte(`{"a": [true]}`), &v); err != nil {
		t.Fatal(err)
	}
	if _, err := v.A.Decode(make([]float64, 1)); err == nil {
		t.Error("decoded true as a number")
	}
}

func TestArray(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{`null`, 0}, {`[]`, 0}, {`[ ]`, 0}, {`[1]`, 1}, {`["a,b", [1, 2], {"c": [3, 4]}]`, 3}, {`["]", "\"]"]`, 2},
	} {
		var v struct {
			A Array `json:"a"`
		}
		if err := json.Unmarshal([]byte(`{"a": `+c.in+`}`), &v); err != nil || v.A.Len() != c.want {
			t.Errorf("%s: Len %d, %v, want %d", c.in, v.A.Len(), err, c.want)
		}
		var all []any
		if err := v.A.Decode(&all); err != nil || len(all) != c.want {
			t.Errorf("%s: decoded %v, %v", c.in, all, err)
		}
	}
}

func TestKeys(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": 1, "B": {"x": 1}, "c": ["d", {"e": 2}]}`, ""},
		{`{"a": 1, "b": {"x": 1}, "z": 2}`, "z"},
		{`{"\u0061": 1, "y\"": 2}`, `y"`},
		{`[{"z": 1}]`, ""},
	} {
		if got := Keys([]byte(c.in), "a", "b", "c"); got != c.want {
			t.Errorf("Keys(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFloatsDoNotAllocate: counting an array of a million numbers in a
// document allocates nothing of its size.
func TestFloatsDoNotAllocate(t *testing.T) {
	doc := []byte(`{"a": [` + strings.Repeat("0,", 1<<20) + `0]}`)
	var v struct {
		A Floats `json:"a"`
	}
	allocs := testing.AllocsPerRun(3, func() {
		if err := json.Unmarshal(doc, &v); err != nil {
			t.Fatal(err)
		}
	})
	if v.A.Len() != 1<<20+1 || allocs > 10 {
		t.Errorf("Len %d after %v allocations", v.A.Len(), allocs)
	}
	if n := testing.AllocsPerRun(3, func() { Values(doc) }); n != 0 {
		t.Errorf("Values allocates %v times", n)
	}
}

// FuzzFloats: Floats counts and decodes an array as encoding/json decodes
// it into a []float64, or refuses it; Values and ObjectKeys never panic,
// and ObjectKeys yields the keys encoding/json sees.
func FuzzFloats(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, -3e2]}`, `{"a": null}`, `{"a": []}`, `{"a": [[1], 2]}`, `{"a": ["x"]}`, `{"a": [1e999]}`, `{"a": [true]}`, `{"a\u0062": {"c": [1]}, "a": [ 1 ,2 ]}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		Values(data)
		var lazy struct {
			A Floats `json:"a"`
		}
		var eager struct {
			A []float64 `json:"a"`
		}
		lerr := json.Unmarshal(data, &lazy)
		eerr := json.Unmarshal(data, &eager)
		if lerr == nil && json.Valid(data) {
			var m map[string]json.RawMessage
			if json.Unmarshal(data, &m) == nil {
				for k := range ObjectKeys(data) {
					if _, ok := m[k]; !ok {
						t.Fatalf("ObjectKeys yields %q, not a key of %s", k, data)
					}
				}
			}
		}
		if lerr != nil {
			return // refused: a type error that encoding/json may leave for later
		}
		got, derr := lazy.A.Decode(make([]float64, lazy.A.Len()))
		if eerr != nil {
			if derr == nil && lazy.A.Len() > 0 {
				t.Fatalf("%s: encoding/json refuses it (%v), Floats decodes %v", data, eerr, got)
			}
			return
		}
		if derr != nil || len(got) != len(eager.A) {
			t.Fatalf("%s: Floats %v, %v; encoding/json %v", data, got, derr, eager.A)
		}
		for i := range got {
			if got[i] != eager.A[i] {
				t.Fatalf("%s: value %d: %v, encoding/json %v", data, i, got[i], eager.A[i])
			}
		}
	})
}
