package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/internal/jsonerr"
	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/nn"
)

// GrammarFile is the copy of a run's PDA spec file, made when the run
// starts, so that a run directory is self-contained: a resumed run trains on
// the language it started with, from any working directory, whatever became
// of the file config.json names. Runs on built-in grammars have none.
const GrammarFile = "grammar.yaml"

// dataFile records, for a run on data files (Config.Data), the directory
// their paths in config.json are relative to and each file's SHA-256, so
// that a resumed run reads the same files from any working directory and
// refuses files changed since it started (data files can be large: they
// are checked, not copied). Runs on grammars have none.
const dataFile = "data.json"

// dataRecord is the content of dataFile.
type dataRecord struct {
	Dir    string            `json:"dir"`    // working directory when the run started
	SHA256 map[string]string `json:"sha256"` // by path as config.json gives it
}

// RunStatus is how far the run in a directory has got, as Train with resume
// would find it.
type RunStatus struct {
	Finished bool   // summary.json exists: resuming returns it, training nothing
	Epoch    int    // epochs the checkpoint holds; 0: a resume starts from the beginning
	WideFrom int    // size rule "both": the paper-size phase's epochs, once its wide phase has begun
	Grammar  string // the run's pinned copy of its PDA spec, "" if none
	DataDir  string // for a run on data files: the directory their relative paths are read from
}

// Status reports how far the run in dir has got; an error if dir holds no
// run (no config.json) or a checkpoint that cannot be read.
func Status(dir string) (RunStatus, error) {
	var st RunStatus
	if _, err := readConfig(dir); err != nil {
		return st, err
	}
	if exists(filepath.Join(dir, SummaryFile)) {
		st.Finished = true
		return st, nil
	}
	if p := filepath.Join(dir, GrammarFile); exists(p) {
		st.Grammar = p
	}
	if b, err := readRecord(filepath.Join(dir, dataFile), "data record"); err == nil {
		var rec dataRecord
		if json.Unmarshal(b, &rec) == nil {
			st.DataDir = rec.Dir
		}
	}
	first, err := checkpointEpoch(filepath.Join(dir, paperSizeFile))
	if err != nil {
		return st, err
	}
	st.Epoch, st.WideFrom = first, first
	epoch, err := checkpointEpoch(filepath.Join(dir, CheckpointFile))
	st.Epoch += epoch
	return st, err
}

// runLanguage returns the language of a run in dir: for a fresh run, the
// grammar cfg names and, for a spec file, the bytes to pin; for a resumed
// run, the pinned copy if the run has one (runs of earlier versions do not:
// they read cfg.Grammar again). The copy is parsed under the name config.json
// gives, so that the language's name, and with it the data, is the same.
func runLanguage(cfg Config, dir string, resume bool) (lang *grammar.Language, pin []byte, err error) {
	if cfg.Data != "" {
		lang, err := dataLanguage(cfg)
		return lang, nil, err
	}
	if l, ok := grammar.Builtin(cfg.Grammar); ok {
		return l, nil, nil
	}
	if resume {
		if lang, pinned, err := pinnedLanguage(cfg, dir); pinned {
			if err != nil {
				return nil, nil, fmt.Errorf("cannot resume: %v", err)
			}
			return lang, nil, nil
		}
	}
	data, err := grammar.ReadSpec(cfg.Grammar)
	if err != nil {
		return nil, nil, err
	}
	lang, err = grammar.FromSpec(cfg.Grammar, data)
	if err != nil {
		return nil, nil, err
	}
	if resume {
		return lang, nil, nil // a run of an earlier version: no copy to add now
	}
	return lang, data, nil
}

// pinnedLanguage reads the copy of its spec file that the run in dir keeps,
// under the name config.json gives; pinned is false if the run has none.
func pinnedLanguage(cfg Config, dir string) (lang *grammar.Language, pinned bool, err error) {
	copyPath := filepath.Join(dir, GrammarFile)
	data, err := limits.ReadFile(copyPath, "PDA spec file", limits.SpecBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, true, err
	}
	if lang, err = grammar.FromSpec(cfg.Grammar, data); err != nil {
		return nil, true, fmt.Errorf("%s (the copy of %s): %v", copyPath, cfg.Grammar, err)
	}
	return lang, true, nil
}

// StoredLanguage is the language the stored run in dir, a run on a
// grammar with configuration cfg, learned: as a resumed run reads it, the
// built-in, or the pinned copy of its spec file (for a run of an earlier
// version without one, the file cfg names).
func StoredLanguage(cfg Config, dir string) (*grammar.Language, error) {
	if _, ok := grammar.Builtin(cfg.Grammar); !ok {
		if lang, pinned, err := pinnedLanguage(cfg, dir); pinned {
			return lang, err
		}
	}
	lang, _, err := runLanguage(cfg, dir, false)
	return lang, err
}

// startFresh readies dir for a run from the beginning: it removes what an
// earlier run there left, the finished marker first (summary.json, then
// model.json and the checkpoint), so that the directory is never a mix of
// an old finished run and a new partial one, then writes the pinned spec
// (if any) and config.json.
func startFresh(dir string, cfg Config, pin []byte) error {
	for _, f := range []string{SummaryFile, ModelFile, CheckpointFile, paperSizeFile, GrammarFile, dataFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if pin != nil {
		if err := atomicfile.WriteFile(filepath.Join(dir, GrammarFile), pin); err != nil {
			return err
		}
	}
	if cfg.Data != "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		rec := dataRecord{Dir: wd, SHA256: map[string]string{}}
		for _, f := range cfg.dataFiles() {
			if rec.SHA256[f], err = fileSHA256(f); err != nil {
				return err
			}
		}
		if err := writeRunJSON(filepath.Join(dir, dataFile), &rec); err != nil {
			return err
		}
	}
	return writeRunJSON(filepath.Join(dir, ConfigFile), cfg)
}

// lockResumed takes the run lock of dir, the directory of a run to resume;
// a directory that does not exist is left to readConfig to report.
func lockResumed(dir string) (func(), error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return func() {}, nil
	}
	return lockRun(dir)
}

// freshRunDir creates dir if needed, takes its run lock and readies it for
// a run from the beginning (startFresh). On an error it removes what it
// made, the lock and the directories it created included.
func freshRunDir(dir string, cfg Config, pin []byte) (unlock func(), err error) {
	created := atomicfile.NewDirs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if unlock, err = lockRun(dir); err != nil {
		atomicfile.RemoveEmpty(created)
		return nil, err
	}
	removeTemps(dir)
	if err := startFresh(dir, cfg, pin); err != nil {
		// Nothing to resume (no config.json): remove what this call made.
		os.Remove(filepath.Join(dir, GrammarFile))
		os.Remove(filepath.Join(dir, dataFile))
		removeTemps(dir)
		unlock()
		atomicfile.RemoveEmpty(created)
		return nil, err
	}
	return unlock, nil
}

// finishRun writes a finished run's results into dir in the order that
// keeps it, at every moment, resumable or finished: model.json, then
// summary.json (the mark of a finished run), then it removes the
// checkpoints. A kill before the summary leaves a model.json beside the
// checkpoint: an unfinished run, whose resume removes it (removeStale) and
// writes it again; a kill after it, a checkpoint that the resume of the
// finished run removes (finished). The model is written after the test sets
// are evaluated, so that the first window is two file writes long.
func finishRun(dir string, sum *Summary, net nn.Model, evalRefine int) error {
	if err := model.Save(filepath.Join(dir, ModelFile), net, evalRefine); err != nil {
		return err
	}
	if err := crashPoint(ModelFile); err != nil {
		return err
	}
	if err := writeRunJSON(filepath.Join(dir, SummaryFile), sum); err != nil {
		return err
	}
	if err := crashPoint(SummaryFile); err != nil {
		return err
	}
	// model.json holds the run's weights: the checkpoints (the same weights
	// plus the random streams) are no longer needed.
	os.Remove(filepath.Join(dir, CheckpointFile))
	os.Remove(filepath.Join(dir, paperSizeFile))
	return nil
}

// writeRunJSON writes v to path as atomicfile.WriteJSON does, refusing a
// file of more than limits.RunFileBytes, the bound its reader applies: a
// run never writes a checkpoint, config or summary that its resume or a
// collect would refuse.
func writeRunJSON(path string, v any) error {
	return writeJSONMax(path, v, limits.RunFileBytes)
}

// writeJSONMax is writeRunJSON with the bound max.
func writeJSONMax(path string, v any, max int64) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if n := int64(len(b)) + 1; n > max {
		return fmt.Errorf("%s: %d bytes is more than the limit of %d bytes of a run file, which a resume would refuse to read", path, n, max)
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// crashPoint is called by finishRun after it writes each file, named; a
// test makes it fail to stop there, as a kill would.
var crashPoint = func(string) error { return nil }

// removeStale removes what a killed session of an unfinished run in dir
// left that is not part of the run: temporary files, and a model.json
// written by a finishing sequence cut short before its summary.json.
func removeStale(dir string) {
	removeTemps(dir)
	os.Remove(filepath.Join(dir, ModelFile))
}

// finished returns the summary of the finished run in dir, removing a
// checkpoint left by a kill between writing the summary and removing it.
func finished(dir string) (*Summary, error) {
	sum, err := ReadSummary(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot resume: %v", err)
	}
	os.Remove(filepath.Join(dir, CheckpointFile))
	return sum, nil
}

// removeTemps removes the temporary files of atomic writes that a killed
// process left in dir (".NAME.tmp*", package atomicfile), for the files of
// a run only.
func removeTemps(dir string) {
	for _, f := range []string{ConfigFile, MetricsFile, timingFile, CheckpointFile, paperSizeFile, ModelFile, SummaryFile, GrammarFile, dataFile} {
		matches, _ := filepath.Glob(filepath.Join(dir, "."+f+".tmp*"))
		for _, m := range matches {
			if strings.HasPrefix(filepath.Base(m), "."+f+".tmp") {
				os.Remove(m)
			}
		}
	}
}

// checkpointError words a checkpoint that cannot be decoded.
func checkpointError(path string, err error) error {
	return fmt.Errorf("cannot resume: %s: %s (remove the run directory to start over)", path, jsonerr.Text(err))
}

// dataPaths returns cfg with the paths of its data files as a resumed run
// in dir reads them: relative ones joined to the directory the run started
// in (dataFile), each checked against the SHA-256 it had then. A run
// without the record (of an earlier version) reads them as given. Only the
// reading changes: config.json, the key and the summary keep the paths as
// given.
func dataPaths(cfg Config, dir string) (Config, error) {
	if cfg.Data == "" {
		return cfg, nil
	}
	b, err := readRecord(filepath.Join(dir, dataFile), "data record")
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("cannot resume: %v", err)
	}
	var rec dataRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return cfg, fmt.Errorf("cannot resume: %s: %s (remove the run directory to start over)", filepath.Join(dir, dataFile), jsonerr.Text(err))
	}
	resolve := func(p string) (string, error) {
		if p == "" {
			return p, nil
		}
		q := p
		if !filepath.IsAbs(q) && rec.Dir != "" {
			q = filepath.Join(rec.Dir, q)
		}
		sum, err := fileSHA256(q)
		if err != nil {
			return "", fmt.Errorf("cannot resume: %v", err)
		}
		if want, ok := rec.SHA256[p]; ok && sum != want {
			return "", fmt.Errorf("cannot resume: %s has changed since the run started; restore it, or train again without --resume", q)
		}
		return q, nil
	}
	if cfg.Data, err = resolve(cfg.Data); err != nil {
		return cfg, err
	}
	if cfg.ValidData, err = resolve(cfg.ValidData); err != nil {
		return cfg, err
	}
	if cfg.SelectData, err = resolve(cfg.SelectData); err != nil {
		return cfg, err
	}
	tests := make([]string, len(cfg.TestData))
	for i, p := range cfg.TestData {
		if tests[i], err = resolve(p); err != nil {
			return cfg, err
		}
	}
	cfg.TestData = tests
	return cfg, nil
}

// fileSHA256 is the hex SHA-256 of the file at path, read within the bound
// on data files.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limits.DataBytes+1))
	if err != nil {
		return "", err
	}
	if n > limits.DataBytes {
		return "", fmt.Errorf("%s: data file of more than %d bytes is more than the limit", path, int64(limits.DataBytes))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
