//go:build unix

package experiment

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nspda/nspda/train"
)

// TestLockSecondTrainRefused: a Train into a directory another Train is
// writing is refused with one line naming the holder, and writes nothing
// there; the first ends with its own config, metrics, model and summary,
// and removes its lock. (Both used to succeed, leaving a mixture of the
// two runs.)
func TestLockSecondTrainRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	first, second := small(), small()
	first.MaxEpochs, second.Seed, second.MaxEpochs = 2, 2, 1
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		var once bool
		_, err := Train(context.Background(), first, dir, false, func(train.Metrics, float64) {
			if !once {
				once = true
				close(started)
				<-release
			}
		})
		done <- err
	}()
	<-started
	before := read(t, filepath.Join(dir, ConfigFile))
	for _, resume := range []bool{false, true} {
		_, err := Train(context.Background(), second, dir, resume, nil)
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), dir+": another run is writing this directory") ||
			!strings.Contains(err.Error(), fmt.Sprintf("pid %d,", os.Getpid())) {
			t.Errorf("second Train (resume %v): %v; want one line naming %s and pid %d", resume, err, dir, os.Getpid())
		}
	}
	if after := read(t, filepath.Join(dir, ConfigFile)); string(after) != string(before) {
		t.Error("the refused Train rewrote config.json")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sum, err := ReadSummary(dir)
	if err != nil || sum.Config.Seed != 1 || sum.Key != first.Key() {
		t.Fatalf("summary %+v, %v; want the first run's", sum, err)
	}
	cfg, err := readConfig(dir)
	if err != nil || cfg.Key() != first.Key() {
		t.Errorf("config.json %v, %v; want the first run's", cfg.Key(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, runLockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file outlived the run: %v", err)
	}
}

// TestLockHelperProcess is not a test: run by TestLockReleasedOnKill as a
// child that takes a run lock and waits to be killed.
func TestLockHelperProcess(t *testing.T) {
	dir := os.Getenv("NSPDA_LOCK_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	if _, err := lockRun(dir); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// TestLockReleasedOnKill: a process killed with SIGKILL while it holds a
// run lock leaves the lock file behind but not the lock: while it lives, a
// Train (fresh or resumed) is refused naming its pid; once it is killed,
// the run resumes and finishes, and the stale lock file is gone.
func TestLockReleasedOnKill(t *testing.T) {
	cfg := small()
	cfg.MaxEpochs = 2
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := Train(ctx, cfg, dir, false, cancelAfter(1, cancel)); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), "NSPDA_LOCK_HELPER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("helper: %q", line)
	}
	_, err = Train(context.Background(), cfg, dir, true, nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d,", cmd.Process.Pid)) {
		t.Fatalf("resume while the helper holds the lock: %v; want refused naming pid %d", err, cmd.Process.Pid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, runLockFile)); err != nil {
		t.Fatalf("the killed holder's lock file: %v; want it left behind", err)
	}
	sum, err := Train(context.Background(), cfg, dir, true, nil)
	if err != nil || sum.Epochs == 0 {
		t.Fatalf("resume after the holder was killed: %+v, %v", sum, err)
	}
	if _, err := os.Stat(filepath.Join(dir, runLockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after the run: %v; want it removed", err)
	}
}
