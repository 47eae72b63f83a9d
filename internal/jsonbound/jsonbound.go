// Package jsonbound lets a reader bound what a JSON file makes it allocate
// before it decodes the file. encoding/json turns two bytes ("0,") into an
// eight-byte float64 and three ("{},") into a whole struct, and grows each
// slice by doubling, so a file within its size bound can still ask for
// gigabytes. The reader counts first, with no allocation: Values counts a
// whole document, Floats counts one array of numbers and decodes it only
// into a buffer of the size the reader has checked.
package jsonbound

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"unicode/utf8"
)

// Values returns the number of values nested in the JSON document data:
// every array element and every object member, at any depth. It does not
// allocate. For data that is not valid JSON it returns 0 and false; the
// caller's decoder then reports what is wrong.
func Values(data []byte) (n int, ok bool) {
	if !json.Valid(data) {
		return 0, false
	}
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i)
		case ',':
			n++
		case '[', '{':
			// A container holds one value more than it has commas, unless
			// it is empty.
			if j := skipSpace(data, i+1); j < len(data) && data[j] != ']' && data[j] != '}' {
				n++
			}
		}
	}
	return n, true
}

// stringEnd returns the index of the quote closing the string that opens
// at data[i].
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return i
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// Floats is a JSON array of numbers (or null) that json.Unmarshal counts
// but does not decode: it keeps the array's bytes, a slice of the document
// (which must stay unchanged until Decode), and its length. Decoding a
// document with json.Decoder instead would leave the bytes in the decoder's
// buffer, which its next read may overwrite.
type Floats struct {
	raw []byte
	n   int
}

// errNotNumbers is what UnmarshalJSON returns for an array that holds
// anything but numbers; the caller names the field.
var errNotNumbers = errors.New("want an array of numbers")

// UnmarshalJSON counts the numbers of the array b without decoding them.
func (f *Floats) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Floats{}
		return nil
	}
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return errNotNumbers
	}
	inner := b[1 : len(b)-1]
	n := 0
	if skipSpace(inner, 0) < len(inner) {
		n = 1
	}
	for _, c := range inner {
		switch c {
		case ',':
			n++
		case '[', '{', '"':
			// Not numbers: and a comma inside would be miscounted.
			return errNotNumbers
		}
	}
	*f = Floats{raw: b, n: n}
	return nil
}

// Len is the number of values in the array (0 for null or an absent one).
func (f *Floats) Len() int { return f.n }

// Decode decodes the array into dst, which must have room for exactly Len
// values, and returns dst; nil for a null or absent array. It allocates
// nothing more: encoding/json fills a slice's spare capacity in place.
func (f *Floats) Decode(dst []float64) ([]float64, error) {
	if f.raw == nil {
		return nil, nil
	}
	if len(dst) != f.n {
		return nil, fmt.Errorf("decode %d numbers into %d places", f.n, len(dst))
	}
	out := dst[:0]
	if err := json.Unmarshal(f.raw, &out); err != nil {
		return nil, err
	}
	if len(out) != len(dst) || (len(dst) > 0 && &out[0] != &dst[0]) {
		return nil, fmt.Errorf("decode %d numbers into %d places", len(out), len(dst))
	}
	return dst, nil
}

// Array is a JSON array (or null) that json.Unmarshal counts but does not
// decode, as Floats, of values of any kind.
type Array struct {
	raw []byte
	n   int
}

// UnmarshalJSON counts the values of the array b without decoding them.
func (a *Array) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*a = Array{}
		return nil
	}
	if len(b) < 2 || b[0] != '[' {
		return errors.New("want an array")
	}
	n, depth := 0, 0
	if skipSpace(b, 1) < len(b)-1 {
		n = 1
	}
	for i := 1; i < len(b)-1; i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
	}
	*a = Array{raw: b, n: n}
	return nil
}

// Len is the number of values in the array (0 for null or an absent one).
func (a *Array) Len() int { return a.n }

// Decode decodes the array into v, a pointer to a slice (left alone for a
// null or absent array).
func (a *Array) Decode(v any) error {
	if a.raw == nil {
		return nil
	}
	return json.Unmarshal(a.raw, v)
}

// Keys returns the first key of data's top-level object that matches none
// of known, as encoding/json matches a field (case-insensitively), or "" if
// every key does (or data is not an object). It is json.Decoder's
// DisallowUnknownFields for json.Unmarshal, which, unlike a Decoder, decodes
// in place; data must be valid JSON.
func Keys(data []byte, known ...string) string {
	for k := range ObjectKeys(data) {
		if !matches(k, known) {
			return k
		}
	}
	return ""
}

// ObjectKeys yields the keys of data's top-level object in order, repeated
// ones again (none if data is not an object). data must be valid JSON. It
// allocates only a key that has escapes.
func ObjectKeys(data []byte) iter.Seq[string] {
	return func(yield func(string) bool) {
		depth := 0
		key := false // the next string at depth 1 is a key
		for i := 0; i < len(data); i++ {
			switch data[i] {
			case '{', '[':
				depth++
				key = depth == 1 && data[i] == '{'
			case '}', ']':
				depth--
			case ',':
				key = depth == 1
			case '"':
				end := stringEnd(data, i)
				if key && depth == 1 && !yield(unquote(data[i:end+1])) {
					return
				}
				key = false
				i = end
			}
		}
	}
}

// unquote decodes a JSON string; one with escapes or invalid UTF-8 (which
// encoding/json replaces) is decoded by encoding/json.
func unquote(q []byte) string {
	if bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q) {
		return string(q[1 : len(q)-1])
	}
	var s string
	if json.Unmarshal(q, &s) != nil {
		return string(q)
	}
	return s
}

func matches(k string, known []string) bool {
	for _, name := range known {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
