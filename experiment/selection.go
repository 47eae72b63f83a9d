package experiment

import (
	"fmt"
	"path/filepath"

	"github.com/nspda/nspda/dataset"
)

// SelectionSet returns the strings a run on data files (cfg.Data) selects
// its weights on, as Train reads them, and their name: the select file's
// base name, or "held-out" for the longest cfg.HoldOut percent of the
// training strings. A run with neither selects on nothing: no strings.
func SelectionSet(cfg Config) (string, []dataset.Example, error) {
	if cfg.Data == "" {
		return "", nil, fmt.Errorf("a run on a grammar has no selection file")
	}
	lang, err := dataLanguage(cfg)
	if err != nil {
		return "", nil, err
	}
	_, _, sel, err := splits(cfg, lang)
	if err != nil {
		return "", nil, err
	}
	switch {
	case cfg.SelectData != "":
		return filepath.Base(cfg.SelectData), sel, nil
	case cfg.HoldOut > 0:
		return "held-out", sel, nil
	}
	return "", nil, nil
}
