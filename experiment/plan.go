package experiment

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/internal/jsonbound"
	"github.com/nspda/nspda/internal/jsonerr"
	"github.com/nspda/nspda/internal/limits"
)

// PlanEntry is one line of a plan file: a run to do, by index.
type PlanEntry struct {
	Index  int    `json:"index"`
	Table  string `json:"table"` // the table that asked for it (the first, when several share it)
	Key    string `json:"key"`
	Config Config `json:"config"`
}

// Plan is the runs of one or more tables, in order, without repeats.
type Plan []PlanEntry

// Add returns p with the configurations of cfgs it does not hold yet
// appended, in order, as asked for by table.
func (p Plan) Add(table string, cfgs []Config) Plan {
	seen := make(map[string]bool, len(p))
	for _, e := range p {
		seen[e.Key] = true
	}
	for _, c := range cfgs {
		if k := c.Key(); !seen[k] {
			seen[k] = true
			p = append(p, PlanEntry{Index: len(p), Table: table, Key: k, Config: c})
		}
	}
	return p
}

// Configs returns the plan's configurations in index order.
func (p Plan) Configs() []Config {
	out := make([]Config, len(p))
	for i, e := range p {
		out[i] = e.Config
	}
	return out
}

// WriteFile writes the plan as JSON lines, atomically; it refuses a plan
// that ReadPlan would refuse for a line over its bound.
func (p Plan) WriteFile(path string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, e := range p {
		n := buf.Len()
		if err := enc.Encode(e); err != nil {
			return err
		}
		if n := buf.Len() - n; n > maxPlanLine {
			return fmt.Errorf("%s: entry %d takes %d bytes, more than the limit of a plan line (%d bytes)", path, e.Index, n, maxPlanLine)
		}
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// maxPlanLine bounds a line of a plan file: one configuration, a few
// kilobytes as nspda writes them.
const maxPlanLine = 1 << 20

// planLineValues bounds the values of a plan entry (a configuration has
// about a hundred), so that what a plan keeps is a small multiple of its
// size (a value of a Config takes up to 16 bytes, written in as few as 3).
const planLineValues = 1 << 12

// ReadPlan reads a plan file, checking that entry i has index i and that
// every key is its configuration's (a plan written by another version of
// nspda, whose Config differs, is refused rather than run under wrong keys).
func ReadPlan(path string) (Plan, error) {
	b, err := limits.ReadFile(path, "plan", limits.RunFileBytes)
	if err != nil {
		return nil, err
	}
	var p Plan
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), maxPlanLine)
	line := 1
	for ; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if n, ok := jsonbound.Values(sc.Bytes()); ok && n > planLineValues {
			return nil, fmt.Errorf("%s:%d: %d values, more than the limit of %d for a plan entry", path, line, n, planLineValues)
		}
		var e PlanEntry
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s:%d: %s", path, line, jsonerr.Text(err))
		}
		if e.Index != len(p) {
			return nil, fmt.Errorf("%s:%d: index %d, want %d", path, line, e.Index, len(p))
		}
		if k := e.Config.Key(); k != e.Key {
			return nil, fmt.Errorf("%s:%d: key %s is not its configuration's (%s): the plan was written by another version of nspda", path, line, e.Key, k)
		}
		p = append(p, e)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s:%d: line of more than %d bytes is more than the limit of a plan line", path, line, maxPlanLine)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", path, line, err)
	}
	return p, nil
}
