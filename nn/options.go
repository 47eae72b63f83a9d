package nn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
)

// ModelOptions are one model's own settings beyond Hidden: a pointer to a
// struct of the model's package (made by its Spec.Options at the model's
// defaults) whose JSON fields are the options' keys in a configuration. A
// configuration holds them as JSON; the model decodes them (strictly: a key
// it does not have is an error) and validates them.
type ModelOptions interface {
	// Validate reports the first setting that cannot work.
	Validate() error
}

// SetOption sets the option key of o to value (a number, bool or string, or
// anything that encodes to the option's JSON), refusing a key o does not
// have and a value its field cannot hold. o is unchanged on error.
func SetOption(o ModelOptions, key string, value any) error {
	if !HasOption(o, key) {
		return fmt.Errorf("no option %q", key)
	}
	if f, ok := value.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return fmt.Errorf("%s must be a finite number, not %g", key, f)
	}
	v, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("%s: cannot hold %v", key, value)
	}
	b, err := json.Marshal(map[string]json.RawMessage{key: v})
	if err != nil {
		return err
	}
	if err := DecodeOptions(b, o, true); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s takes %s values, not %s", key, te.Type, v)
		}
		return fmt.Errorf("%s: %v", key, err)
	}
	return nil
}

// HasOption reports whether o has the option key.
func HasOption(o ModelOptions, key string) bool {
	if o == nil {
		return false
	}
	b, err := json.Marshal(map[string]any{key: nil})
	return err == nil && DecodeOptions(b, o, true) == nil // null sets nothing
}

// DecodeOptions decodes the JSON object b over o (a pointer to a struct),
// refusing a key o does not have if strict. o is unchanged on error.
func DecodeOptions(b []byte, o ModelOptions, strict bool) error {
	p := reflect.ValueOf(o)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return fmt.Errorf("options of type %T are not a pointer to a struct", o)
	}
	fresh := reflect.New(p.Type().Elem())
	fresh.Elem().Set(p.Elem())
	dec := json.NewDecoder(bytes.NewReader(b))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(fresh.Interface()); err != nil {
		return err
	}
	p.Elem().Set(fresh.Elem())
	return nil
}
