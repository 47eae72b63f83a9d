package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nspda/nspda/internal/testutil"
)

func TestWriteJSONLFormat(t *testing.T) {
	var b bytes.Buffer
	ex := []Example{{"aabb", 1}, {"<a&b>", 0}, {"", 0}}
	if err := WriteJSONL(&b, ex); err != nil {
		t.Fatal(err)
	}
	const want = `{"string":"aabb","label":1}` + "\n" +
		`{"string":"<a&b>","label":0}` + "\n" +
		`{"string":"","label":0}` + "\n"
	if b.String() != want {
		t.Errorf("WriteJSONL wrote\n%s\nwant\n%s", b.String(), want)
	}
	got, err := ReadJSONL(&b, "x")
	if err != nil || !reflect.DeepEqual(got, ex) {
		t.Errorf("round trip = %v, %v; want %v", got, err, ex)
	}
}

func TestReadJSONLErrors(t *testing.T) {
	const ok = `{"string":"ab","label":1}` + "\n"
	cases := []struct{ in, want string }{
		{ok + `{"string":"ab","label":1`, `d.jsonl:2: bad JSON: unexpected end of JSON input`},
		{ok + ok + `{"string":"ab","label":1} x`, `d.jsonl:3: bad JSON: invalid character 'x' after top-level value`},
		{`["ab",1]`, `d.jsonl:1: not a JSON object`},
		{ok + "\n" + ok, `d.jsonl:2: empty line`},
		{`{"label":1}`, `d.jsonl:1: missing field "string"`},
		{`{"string":"ab"}`, `d.jsonl:1: missing field "label"`},
		{`{"string":"ab","label":1,"weight":2,"id":3}`, `d.jsonl:1: unknown field "id"`},
		{`{"string":"ab","label":2}`, `d.jsonl:1: label must be 0 or 1, not 2`},
		{`{"string":"ab","label":1.0}`, `d.jsonl:1: label must be 0 or 1, not 1.0`},
		{`{"string":"ab","label":"1"}`, `d.jsonl:1: label must be 0 or 1, not "1"`},
		{`{"string":"ab","label":null}`, `d.jsonl:1: label must be 0 or 1, not null`},
		{`{"string":12,"label":1}`, `d.jsonl:1: string must be a JSON string, not 12`},
		{`{"string":null,"label":1}`, `d.jsonl:1: string must be a JSON string, not null`},
	}
	for _, c := range cases {
		_, err := ReadJSONL(strings.NewReader(c.in), "d.jsonl")
		if err == nil || err.Error() != c.want {
			t.Errorf("ReadJSONL(%q) error = %v\nwant %s", c.in, err, c.want)
		}
	}
}

func TestReadJSONLLenient(t *testing.T) {
	in := "{ \"label\" : 0 , \"string\" : \"ba\" }\r\n" + `{"string":"ab","label":1}` // CRLF, spaces, no final newline
	got, err := ReadJSONL(strings.NewReader(in), "x")
	want := []Example{{"ba", 0}, {"ab", 1}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadJSONL = %v, %v; want %v", got, err, want)
	}
	if got, err := ReadJSONL(strings.NewReader(""), "x"); err != nil || len(got) != 0 {
		t.Errorf("ReadJSONL(empty) = %v, %v", got, err)
	}
}

func TestWriteFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train.jsonl")
	ex, err := GenerateSplit(dyck2(), "valid", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []Example{{"old", 0}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, ex); err != nil { // replaces the old file
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil || !reflect.DeepEqual(got, ex) {
		t.Fatalf("ReadFile after WriteFile: %v (%d examples, want %d)", err, len(got), len(ex))
	}
	if err := Check(dyck2(), got); err != nil {
		t.Error(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode of %s: %v, %v; want 0644", path, fi.Mode(), err)
	}
	assertOnly(t, dir, "train.jsonl")
}

func TestWriteFileFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing", "train.jsonl")
	err := WriteFile(path, []Example{{"ab", 1}})
	if err == nil || err.Error() != path+": no such file or directory" {
		t.Errorf("WriteFile into a missing directory: error = %v", err)
	}
	// A directory in the way: the rename fails after the temp file is written.
	blocked := filepath.Join(dir, "blocked")
	if err := os.Mkdir(filepath.Join(blocked), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blocked, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(blocked, []Example{{"ab", 1}}); err == nil || !strings.HasPrefix(err.Error(), blocked+": ") {
		t.Errorf("WriteFile over a non-empty directory: error = %v", err)
	}
	assertOnly(t, dir, "blocked")
}

// assertOnly fails unless dir holds exactly the named entries.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	if got := testutil.DirNames(t, dir); !reflect.DeepEqual(got, names) {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

func TestReadFileErrorsNamePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(`{"string":"ab","label":1}`+"\n"+`{"string":"ab"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	if want := path + `:2: missing field "label"`; err == nil || err.Error() != want {
		t.Errorf("ReadFile error = %v, want %s", err, want)
	}
	if _, err := ReadFile(path + ".none"); err == nil {
		t.Error("ReadFile of a missing file succeeded")
	}
}

// TestReadJSONLInvalidUTF8: invalid UTF-8 is reported by its byte offset
// (it used to become '�' and be reported as a symbol outside the alphabet),
// and an overlong line is refused.
func TestReadJSONLInvalidUTF8(t *testing.T) {
	_, err := ReadJSONL(strings.NewReader("{\"string\":\"ab\xffb\",\"label\":1}\n"), "d.jsonl")
	if err == nil || err.Error() != "d.jsonl:1: invalid UTF-8 at byte 14 of the line" {
		t.Errorf("invalid UTF-8: %v", err)
	}
	long := `{"string":"` + strings.Repeat("a", maxLine) + `","label":1}`
	if _, err := ReadJSONL(strings.NewReader(long), "d.jsonl"); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("overlong line: %v", err)
	}
}

// TestReadJSONLMemory: reading a file of long strings allocates a small
// multiple of the file: the line (in the reader's buffer, or one reused
// buffer for a longer one), the string's raw text and the string kept, not
// a copy per line, a map, its raw values and the string decoded from them
// (about seven times the file).
func TestReadJSONLMemory(t *testing.T) {
	plain := `{"string":"` + strings.Repeat(`ab`, 1<<15) + `","label":1}` + "\n"
	escaped := `{"string":"` + strings.Repeat(`\u0061\u0062`, 1<<15) + `","label":1}` + "\n"
	for name, line := range map[string]string{"plain": plain, "escaped": escaped} {
		data := []byte(strings.Repeat(line, 1<<20/len(line)+1))
		var ex []Example
		var err error
		got := testutil.Allocated(func() { ex, err = ReadJSONL(bytes.NewReader(data), name) })
		if err != nil || len(ex) == 0 || len(ex[0].String) != 1<<16 {
			t.Fatalf("%s: %d examples, %v", name, len(ex), err)
		}
		t.Logf("%s: file %d KiB, allocated %d KiB", name, len(data)>>10, got>>10)
		if budget := uint64(3*len(data) + 1<<20); got > budget {
			t.Errorf("%s: reading %d KiB allocated %d KiB, more than 3 times the file and 1 MiB", name, len(data)>>10, got>>10)
		}
	}
}
