package nn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// The checks a model's Spec.New and Spec.Load share.

// CheckAlphabet refuses an empty alphabet, repeated symbols, and the end
// marker '$'.
func CheckAlphabet(alphabet []rune) error {
	if len(alphabet) == 0 {
		return errors.New("alphabet is empty")
	}
	for i, r := range alphabet {
		if r == '$' {
			return errors.New("'$' is reserved for the end marker")
		}
		if slices.Contains(alphabet[:i], r) {
			return fmt.Errorf("symbol %q appears twice in the alphabet", r)
		}
	}
	return nil
}

// DecodeConfig decodes a model's config as JSON (the argument of
// Spec.Load) into v, refusing unknown fields.
func DecodeConfig(config []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(config))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// CheckFinite names the first parameter that is NaN or infinite
// ("parameter i is NaN"), if any.
func CheckFinite(params []float64) error {
	for i, v := range params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("parameter %d is %v", i, v)
		}
	}
	return nil
}

// CopyParams copies a loaded parameter vector src into dst, refusing it
// (CheckFinite) if a parameter is NaN or infinite.
func CopyParams(dst, src []float64) error {
	if err := CheckFinite(src); err != nil {
		return err
	}
	copy(dst, src)
	return nil
}
