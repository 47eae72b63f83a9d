// Package jsonerr rewords encoding/json's errors for users: what was
// expected where, in JSON's terms, without Go type names.
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Text describes err in one line. A type mismatch names the field and the
// JSON kinds ("field "J": want an integer, not a string"); a syntax error
// its byte offset. Other errors keep their text, less the "json: " prefix.
func Text(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := kind(te.Type)
		if te.Field == "" {
			return fmt.Sprintf("want %s, not %s (byte %d)", want, article(te.Value), te.Offset)
		}
		return fmt.Sprintf("field %q: want %s, not %s (byte %d)", te.Field, want, article(te.Value), te.Offset)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return oneLine(strings.TrimPrefix(err.Error(), "json: "))
}

// Error is Text as an error, nil for nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(Text(err))
}

// kind names the JSON value a Go type decodes from.
func kind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return kind(t.Elem())
	}
	return "a value"
}

// article puts "a" or "an" before one of encoding/json's value names
// (object, array, string, number, bool, or "number 1.5").
func article(v string) string {
	switch {
	case v == "":
		return "a value"
	case strings.HasPrefix(v, "number "):
		return v
	case strings.ContainsAny(v[:1], "aeiou"):
		return "an " + v
	}
	return "a " + v
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
