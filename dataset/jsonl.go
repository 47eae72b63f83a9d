package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/internal/jsonbound"
	"github.com/nspda/nspda/internal/limits"
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
//
// A line may hold at most maxLine bytes (a string of limits.StringLen
// symbols, each escaped), and a file at most limits.Strings examples.
func ReadJSONL(r io.Reader, name string) ([]Example, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var ex []Example
	var buf []byte // a line longer than br's buffer, reused
	for line := 1; ; line++ {
		b, err := readLine(br, buf[:0], maxLine)
		if cap(b) > cap(buf) && len(b) > br.Size() {
			buf = b
		}
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
		if len(ex) == limits.Strings {
			return nil, fmt.Errorf("%s:%d: more than the limit of %d examples", name, line, limits.Strings)
		}
		ex = append(ex, e)
	}
}

// maxLine bounds a JSONL line: a string of limits.StringLen symbols, each
// written as a 12-byte escaped surrogate pair, and the rest of the object.
const maxLine = 12*limits.StringLen + 1024

// readLine reads up to and including the next newline, refusing a line of
// more than max bytes before reading the rest of it. A line that fits in
// br's buffer is returned in it (valid until the next read); a longer one
// is gathered in buf, grown as needed.
func readLine(br *bufio.Reader, buf []byte, max int) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return chunk, err
	}
	b := buf
	for {
		if len(b)+len(chunk) > max {
			return nil, fmt.Errorf("line longer than the limit of %d bytes", max)
		}
		b = append(b, chunk...)
		if err != bufio.ErrBufferFull {
			return b, err
		}
		chunk, err = br.ReadSlice('\n')
	}
}

// invalidUTF8 returns the offset of the first byte of b that is not valid
// UTF-8.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// parseLine decodes one line of a JSONL file.
func parseLine(b []byte) (Example, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return Example{}, errors.New("empty line")
	}
	if !utf8.Valid(b) {
		return Example{}, fmt.Errorf("invalid UTF-8 at byte %d of the line", invalidUTF8(b)+1)
	}
	if b[0] != '{' {
		return Example{}, errors.New("not a JSON object")
	}
	// The fields are decoded as raw JSON (a copy of the string's text), not
	// into a map: the string is then the only copy kept.
	var fields struct {
		String json.RawMessage `json:"string"`
		Label  json.RawMessage `json:"label"`
	}
	if err := json.Unmarshal(b, &fields); err != nil {
		return Example{}, fmt.Errorf("bad JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if err := checkKeys(b); err != nil {
		return Example{}, err
	}
	var e Example
	if err := decodeString(fields.String, &e.String); err != nil {
		return Example{}, err
	}
	if err := limits.Check("string length", utf8.RuneCountInString(e.String), limits.StringLen); err != nil {
		return Example{}, err
	}
	switch l := string(fields.Label); l {
	case "0", "1":
		e.Label = int(l[0] - '0')
	default:
		return Example{}, fmt.Errorf("label must be 0 or 1, not %s", l)
	}
	return e, nil
}

// decodeString decodes the JSON string raw (valid JSON) into s: one without
// escapes is its text between the quotes.
func decodeString(raw json.RawMessage, s *string) error {
	if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		*s = string(raw[1 : len(raw)-1])
		return nil
	}
	if err := json.Unmarshal(raw, s); err != nil || bytes.Equal(raw, []byte("null")) {
		return fmt.Errorf("string must be a JSON string, not %s", raw)
	}
	return nil
}

// checkKeys reports a missing field of the object b, or the first unknown
// one in sorted order. Keys are matched exactly (encoding/json would match
// "String" to the field "string").
func checkKeys(b []byte) error {
	var hasString, hasLabel bool
	var extra []string
	for k := range jsonbound.ObjectKeys(b) {
		switch k {
		case "string":
			hasString = true
		case "label":
			hasLabel = true
		default:
			extra = append(extra, k)
		}
	}
	switch {
	case !hasString:
		return fmt.Errorf("missing field %q", "string")
	case !hasLabel:
		return fmt.Errorf("missing field %q", "label")
	case len(extra) > 0:
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
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limits.DataBytes {
		return nil, fmt.Errorf("%s: data file of %d bytes is more than the limit of %d bytes", path, fi.Size(), int64(limits.DataBytes))
	}
	return ReadJSONL(f, path)
}
