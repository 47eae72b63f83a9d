package experiment

import (
	"encoding/json"
	"fmt"
)

// Schema is the version of the configuration's settings: what its keys
// mean. A run's key hashes its configuration's JSON (Key), so a change that
// would make a stored configuration mean something else must come with a
// new schema and a migration of the stored keys. The changes so far only
// removed settings that no stored run had set, so every stored run keeps
// its key: its config.json, read by this version (Migrate), hashes to its
// directory's name (TestStoredKeys).
//
//	1  the settings of nspda up to commit 374c0192 (lastWith)
//	2  removed the settings in Removed, which no recipe used
const Schema = 2

// Removal is a setting a schema removed, and what it did.
type Removal struct {
	Key    string // its JSON key
	Schema int    // the first schema without it
	What   string // what it did, for the message that refuses it
}

// Removed are the settings that earlier schemas had. None was in a recipe,
// and no stored run set one (the ablation found nothing they pay for):
// a configuration that gives one at its zero value reads as without it;
// one that sets it is refused, with what it did and the schema that left
// it out.
var Removed = []Removal{
	{"economy_weight", 2, "a prior towards the no-op at every input without a PDA operation"},
	{"init_scale", 2, "a factor on the initial weights"},
	{"plateau", 2, "halving the rate after epochs without improvement"},
	{"restart_schedule", 2, "Luby's schedule of start patiences"},
	{"first_patience", 2, "a patience of the first start's own"},
	{"probe_long", 2, "the long starts' patience for every Nth short start"},
	{"select_rule", 2, "ranking epochs by training errors first"},
}

// removal returns key's Removal, if a schema removed it.
func removal(key string) (Removal, bool) {
	for _, r := range Removed {
		if r.Key == key {
			return r, true
		}
	}
	return Removal{}, false
}

// lastWith is a commit of nspda that still has the settings of schema 1.
const lastWith = "374c0192"

// err is the error of a configuration that sets r's setting.
func (r Removal) err() error {
	return fmt.Errorf("%s (%s) was removed in configuration schema %d, as no recipe used it; nspda at commit %s still trains it",
		r.Key, r.What, r.Schema, lastWith)
}

// Migrate reads a configuration written by any schema (a stored
// config.json) as this schema's: a removed setting at its zero value is
// dropped, one set is an error. The key of the result is the key the run
// was stored under.
func Migrate(b []byte) (Config, error) {
	var c Config
	err := json.Unmarshal(b, &c)
	return c, err
}

// dropRemoved returns fields without the removed settings at their zero
// values, or the error of the first removed setting that is set.
func dropRemoved(fields []field) ([]field, error) {
	out := fields[:0:0]
	for _, f := range fields {
		r, gone := removal(f.key)
		switch {
		case !gone:
			out = append(out, f)
		case !isZero(f.val):
			return nil, r.err()
		}
	}
	return out, nil
}
