package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nspda/nspda/experiment"
)

// TestKillResume kills a training run (the built binary, SIGKILL) at
// random moments, many times, resuming it after each kill. After every
// kill the directory must be finished (a valid summary) or resumable
// (its status readable), never a mix; after the last, clean, session it
// must be finished and hold no temporary files.
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and resumes a training run many times")
	}
	bin := filepath.Join(t.TempDir(), "nspda")
	if out, err := exec.Command(goTool(), "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "run")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	start := func() *exec.Cmd {
		args := []string{"train", "--quiet", "--max-epochs", "30", "--lr", "0.001", "--curriculum", "standard", "--out", dir}
		if _, err := os.Stat(filepath.Join(dir, experiment.ConfigFile)); err == nil {
			args = []string{"train", "--resume", dir}
		}
		return exec.Command(bin, args...)
	}
	kills := 0
	defer func() { t.Logf("%d kills", kills) }()
	for i := range 45 {
		cmd := start()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		kills++
		if _, err := os.Stat(filepath.Join(dir, experiment.SummaryFile)); err == nil {
			if _, err := experiment.ReadSummary(dir); err != nil {
				t.Fatalf("kill %d: a summary that does not read: %v", i, err)
			}
			break
		}
		if _, err := os.Stat(filepath.Join(dir, experiment.ConfigFile)); err != nil {
			continue // killed before the run started: nothing to resume
		}
		if _, err := experiment.Status(dir); err != nil {
			t.Fatalf("kill %d: not resumable: %v", i, err)
		}
	}
	if out, err := start().CombinedOutput(); err != nil {
		t.Fatalf("final session: %v\n%s", err, out)
	}
	if _, err := experiment.ReadSummary(dir); err != nil {
		t.Fatalf("not finished after a clean session: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) > 0 {
		t.Errorf("temporary files left after a clean end: %v", m)
	}
	if _, err := os.Stat(filepath.Join(dir, experiment.CheckpointFile)); err == nil {
		t.Errorf("checkpoint left after a clean end")
	}
}
