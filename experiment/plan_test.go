package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanLongLine: a plan line over the bound is refused with one line
// naming the file, the line and the bound (it used to be "bufio.Scanner:
// token too long"), and Plan.WriteFile refuses to write one.
func TestPlanLongLine(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	cfg := Defaults()
	if err := Plan(nil).Add("t", []Config{cfg}).WriteFile(good); err != nil {
		t.Fatal(err)
	}
	first := read(t, good)
	path := filepath.Join(dir, "plan.jsonl")
	long := fmt.Sprintf(`{"index":1,"table":"%s"}`, strings.Repeat("x", maxPlanLine))
	os.WriteFile(path, append(first, long+"\n"...), 0o644)
	_, err := ReadPlan(path)
	want := fmt.Sprintf("%s:2: line of more than %d bytes", path, maxPlanLine)
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %v, want one line starting %q", err, want)
	}
	cfg.TestData = []string{strings.Repeat("d", maxPlanLine)}
	err = Plan(nil).Add("t", []Config{cfg}).WriteFile(path)
	if err == nil || !strings.Contains(err.Error(), "more than the limit of a plan line") {
		t.Errorf("writing a plan with a line over the bound: %v", err)
	}
}
