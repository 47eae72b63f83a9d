package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/nspda/nspda/internal/atomicfile"
	"io"
	"os"
	"slices"
	"strings"
)

// WriteJSONL writes one JSON object per line, {"string":"aabb","label":1},
// in encoding/json's compact form with the keys in that order (HTML
// characters are not escaped).
func WriteJSONL(w io.Writer, ex []Example) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range ex {
		if err := enc.Encode(&ex[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteFile writes ex to path as JSONL atomically: path is either left as it
// was or holds the whole new file (mode 0644).
func WriteFile(path string, ex []Example) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteJSONL(w, ex) })
}

// ReadJSONL reads the examples written by WriteJSONL. An error is one line,
// "NAME:LINE: what is wrong", for a line that is not a JSON object, lacks
// "string" or "label", has another field, or has a label other than 0 or 1.
// Empty lines are errors too.
func ReadJSONL(r io.Reader, name string) ([]Example, error) {
	br := bufio.NewReader(r)
	var ex []Example
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err == io.EOF {
			return ex, nil
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		e, perr := parseLine(b)
		if perr != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, perr)
		}
		ex = append(ex, e)
	}
}

// parseLine decodes one line of a JSONL file.
func parseLine(b []byte) (Example, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return Example{}, errors.New("empty line")
	}
	if b[0] != '{' {
		return Example{}, errors.New("not a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return Example{}, fmt.Errorf("bad JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if err := checkKeys(fields); err != nil {
		return Example{}, err
	}
	var e Example
	if err := json.Unmarshal(fields["string"], &e.String); err != nil || bytes.Equal(fields["string"], []byte("null")) {
		return Example{}, fmt.Errorf("string must be a JSON string, not %s", fields["string"])
	}
	switch l := string(fields["label"]); l {
	case "0", "1":
		e.Label = int(l[0] - '0')
	default:
		return Example{}, fmt.Errorf("label must be 0 or 1, not %s", l)
	}
	return e, nil
}

// checkKeys reports a missing field, or the first unknown one in sorted order.
func checkKeys(fields map[string]json.RawMessage) error {
	for _, k := range []string{"string", "label"} {
		if _, ok := fields[k]; !ok {
			return fmt.Errorf("missing field %q", k)
		}
	}
	var extra []string
	for k := range fields {
		if k != "string" && k != "label" {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		return fmt.Errorf("unknown field %q", slices.Min(extra))
	}
	return nil
}

// ReadFile reads a JSONL file written by WriteFile; errors name the path.
func ReadFile(path string) ([]Example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadJSONL(f, path)
}
