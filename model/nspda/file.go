package nspda

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/internal/jsonbound"
	"github.com/nspda/nspda/internal/jsonerr"
	"github.com/nspda/nspda/internal/limits"
)

// FileFormat and FileVersion identify the model file this package writes.
// Readers refuse a newer version rather than guess at it.
const (
	FileFormat  = "nspda-model"
	FileVersion = 1
)

// file is the JSON layout of a model file.
type file struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	Kind       string    `json:"kind"`
	Order      int       `json:"order"`
	Alphabet   string    `json:"alphabet"`
	J          int       `json:"J"`
	A          int       `json:"A"`
	EvalRefine int       `json:"eval_refine"`
	Neurons    []string  `json:"neurons,omitempty"`
	Layout     string    `json:"layout"`
	Ws         []float64 `json:"Ws"`
	Bs         []float64 `json:"bs"`
	Wa         []float64 `json:"Wa"`
	Ba         []float64 `json:"ba"`
	Wo         []float64 `json:"Wo"`
	Bo         float64   `json:"bo"`
}

// Layouts, recorded in the file so that other tools can read the tensors.
const (
	layout3 = "Ws[l][j][i][k], Wa[l][j][c][k]: input l, from state j, to neuron i or action c, read k"
	layout2 = "Ws[j][i][m], Wa[j][c][m]: from state j, to neuron i or action c, m over [read; input]"
)

// Encode writes m as a versioned JSON model file.
func (m *Model) Encode(w io.Writer) error {
	for _, v := range m.Params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("model has a non-finite parameter")
		}
	}
	f := file{
		Format: FileFormat, Version: FileVersion, Kind: "nspda",
		Order: int(m.Order), Alphabet: string(m.Alphabet), J: m.J, A: m.A,
		EvalRefine: m.EvalRefine, Neurons: m.Neurons, Layout: layout3,
		Ws: m.Ws, Bs: m.Bs, Wa: m.Wa, Ba: m.Ba, Wo: m.Wo, Bo: m.Bo[0],
	}
	if m.Order == Second {
		f.Layout = layout2
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(&f)
}

// Decode reads a model file, refusing anything malformed: bad or truncated
// JSON, data after the model, another format, a newer version, or tensors
// of the wrong size. A reader with a Bytes method (a *bytes.Buffer) is
// decoded in place; any other is read whole first.
func Decode(r io.Reader) (*Model, error) {
	if b, ok := r.(interface{ Bytes() []byte }); ok {
		return DecodeBytes(b.Bytes())
	}
	data, err := limits.ReadAll(r, "input", "model file", limits.ModelBytes)
	if err != nil {
		return nil, err
	}
	return DecodeBytes(data)
}

// DecodeBytes is Decode of a model file's bytes. It allocates the model and
// little else: the tensors are counted in place (jsonbound.Floats), checked
// against the shape the file declares, and only then decoded, each straight
// into the model's parameters. data must not change meanwhile.
func DecodeBytes(data []byte) (*Model, error) {
	var f fileIn
	if err := UnmarshalStrict(data, &f, fileKeys...); err != nil {
		return nil, err
	}
	if f.Format != FileFormat {
		return nil, fmt.Errorf("not an nspda model file (format %q)", f.Format)
	}
	if f.Version > FileVersion {
		return nil, fmt.Errorf("model file version %d is newer than this nspda reads (%d); upgrade nspda", f.Version, FileVersion)
	}
	if f.Version < 1 {
		return nil, fmt.Errorf("bad model file version %d", f.Version)
	}
	if f.Kind != "nspda" {
		return nil, fmt.Errorf("model kind %q is not an NSPDA", f.Kind)
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("bad model file: %v", err)
	}
	// Only now, with the shape bounded and every tensor in the file of the
	// length the shape implies, is the model allocated.
	m, err := New(f.shape(), []rune(f.Alphabet))
	if err != nil {
		return nil, fmt.Errorf("bad model file: %v", err)
	}
	m.EvalRefine = f.EvalRefine
	if err := f.Neurons.Decode(&m.Neurons); err != nil {
		return nil, fmt.Errorf("not a valid model file: field \"neurons\": %s", jsonerr.Text(err))
	}
	dst := [6][]float64{m.Ws, m.Bs, m.Wa, m.Ba, m.Wo}
	for i, src := range f.lazy() {
		if _, err := src.Decode(dst[i]); err != nil {
			return nil, fmt.Errorf("not a valid model file: field %q: %s", Tensor(i), jsonerr.Text(err))
		}
	}
	m.Bo[0] = f.Bo
	return m, nil
}

// UnmarshalStrict decodes the JSON document data into v as json.Unmarshal
// does (in place, refusing data after the value), refusing a top-level key
// that is none of known (as json.Decoder's DisallowUnknownFields would;
// with no known keys, any key is accepted). A
// document that ends too soon gives ErrTruncated; other errors read "not a
// valid model file: ...".
func UnmarshalStrict(data []byte, v any, known ...string) error {
	err := json.Unmarshal(data, v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se) && se.Error() == "unexpected end of JSON input":
		return ErrTruncated
	case err != nil:
		return fmt.Errorf("not a valid model file: %s", jsonerr.Text(err))
	}
	if k := jsonbound.Keys(data, known...); k != "" && len(known) > 0 {
		return fmt.Errorf("not a valid model file: unknown field %q", k)
	}
	return nil
}

// ErrTruncated is the error for a model file that ends too soon (Decode
// returns it; the model registry too, for a model file of any kind).
var ErrTruncated = errors.New("not a complete model file (truncated?)")

// fileIn is file as Decode reads it: the tensors counted, not decoded.
type fileIn struct {
	file
	Neurons jsonbound.Array  `json:"neurons"`
	Ws      jsonbound.Floats `json:"Ws"`
	Wa      jsonbound.Floats `json:"Wa"`
	Bs      jsonbound.Floats `json:"bs"`
	Ba      jsonbound.Floats `json:"ba"`
	Wo      jsonbound.Floats `json:"Wo"`
}

// fileKeys are the keys of a model file.
var fileKeys = []string{"format", "version", "kind", "order", "alphabet", "J", "A", "eval_refine", "neurons", "layout", "Ws", "bs", "Wa", "ba", "Wo", "bo"}

// shape is the shape the file declares.
func (f *fileIn) shape() Shape {
	return Shape{Order: Order(f.Order), L: utf8.RuneCountInString(f.Alphabet), J: f.J, A: f.A}
}

// lazy returns the file's tensors but bo in storage order.
func (f *fileIn) lazy() [5]*jsonbound.Floats {
	return [5]*jsonbound.Floats{&f.Ws, &f.Bs, &f.Wa, &f.Ba, &f.Wo}
}

// check validates the declared shape and the lengths of the tensors against
// it without allocating anything of the shape's size.
func (f *fileIn) check() error {
	s := f.shape()
	if err := s.Validate(); err != nil {
		return err
	}
	if f.EvalRefine < 1 {
		return fmt.Errorf("eval_refine %d < 1", f.EvalRefine)
	}
	if err := limits.Check("eval_refine", f.EvalRefine, limits.Refine); err != nil {
		return err
	}
	if f.Neurons.Len() > 0 && f.Neurons.Len() != s.J {
		return fmt.Errorf("%d neuron names for J = %d", f.Neurons.Len(), s.J)
	}
	want := s.sizes()
	for i, t := range f.lazy() {
		if t.Len() != want[i] {
			return fmt.Errorf("%s has %d values, want %d for order %d, L=%d, J=%d, A=%d",
				Tensor(i), t.Len(), want[i], s.Order, s.L, s.J, s.A)
		}
	}
	return nil
}

// WriteFile writes m to path atomically: to a temporary file in the same
// directory, synced, then renamed, so that a crash never leaves a partial file.
func (m *Model) WriteFile(path string) error {
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		return err
	}
	return WriteFileAtomic(path, buf.Bytes())
}

// ReadFile reads a model file; errors name the file.
func ReadFile(path string) (*Model, error) {
	data, err := limits.ReadFile(path, "model file", limits.ModelBytes)
	if err != nil {
		return nil, err
	}
	m, err := DecodeBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

// WriteFileAtomic writes data to path through a temporary file and a rename
// (package internal/atomicfile), so that a crash never leaves a partial file.
func WriteFileAtomic(path string, data []byte) error { return atomicfile.WriteFile(path, data) }
