package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nspda/nspda/experiment"
)

// slurmBinaries are the programs the Slurm test needs, looked up in PATH
// and in the sbin directories Debian installs the daemons to.
var slurmBinaries = []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"}

func lookSlurm(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p, true
		}
	}
	return "", false
}

// slurmCluster is a one-node Slurm (munged, slurmctld, slurmd on
// localhost) living in a temporary directory.
type slurmCluster struct {
	t    *testing.T
	dir  string
	conf string
	bin  map[string]string
}

// startSlurm starts the daemons and waits until the node is idle; they are
// stopped (by the process ids the test started) when the test ends.
func startSlurm(t *testing.T) *slurmCluster {
	c := &slurmCluster{t: t, dir: t.TempDir(), bin: make(map[string]string)}
	for _, name := range slurmBinaries {
		p, ok := lookSlurm(name)
		if !ok {
			t.Skipf("%s is not installed (apt-get install slurm-wlm munge): skipping the single-node Slurm test", name)
		}
		c.bin[name] = p
	}
	if os.Geteuid() != 0 {
		t.Skip("slurmd must run as root to start jobs: skipping the single-node Slurm test")
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	mungeDir := filepath.Join(c.dir, "munge")
	for _, d := range []string{mungeDir, filepath.Join(c.dir, "state"), filepath.Join(c.dir, "spool")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(c.dir, "munge.key")
	if err := os.WriteFile(key, randomKey(t), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(mungeDir, "munge.sock")
	c.daemon("munged", "--foreground", "--force", "--socket="+sock, "--key-file="+key,
		"--log-file="+filepath.Join(c.dir, "munged.log"), "--pid-file="+filepath.Join(c.dir, "munged.pid"),
		"--seed-file="+filepath.Join(c.dir, "munged.seed"))
	c.waitFor("munged's socket", 10*time.Second, func() bool { return fileExists(sock) })
	c.conf = filepath.Join(c.dir, "slurm.conf")
	if err := os.WriteFile(c.conf, []byte(slurmConf(c.dir, host, sock, freePort(t), freePort(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	c.daemon("slurmctld", "-D", "-f", c.conf)
	c.daemon("slurmd", "-D", "-f", c.conf, "-N", host)
	c.waitFor("the node to be idle", 30*time.Second, func() bool {
		out, err := c.cmd("sinfo", "-h", "-o", "%T").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	})
	return c
}

// slurmConf is a minimal configuration: one node, no cgroups, no
// accounting, everything under dir. The node claims slurmCPUs CPUs
// (config_overrides) whatever the machine has, so that every task of the
// small test plan runs at once: they are tiny, and Slurm starts a new wave
// of tasks only every few seconds.
const slurmCPUs = 16

func slurmConf(dir, host, mungeSocket string, ctldPort, dPort int) string {
	return fmt.Sprintf(`ClusterName=nspdatest
SlurmctldHost=%[2]s(127.0.0.1)
SlurmctldPort=%[4]d
SlurmdPort=%[5]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[3]s
CredType=cred/munge
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool
SlurmctldPidFile=%[1]s/slurmctld.pid
SlurmdPidFile=%[1]s/slurmd.pid
SlurmctldLogFile=%[1]s/slurmctld.log
SlurmdLogFile=%[1]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=%[2]s NodeAddr=127.0.0.1 CPUs=%[6]d State=UNKNOWN
PartitionName=debug Nodes=%[2]s Default=YES MaxTime=INFINITE State=UP
`, dir, host, mungeSocket, ctldPort, dPort, slurmCPUs)
}

// daemon starts a daemon in the foreground and stops it by its pid when
// the test ends, printing its log if the test failed.
func (c *slurmCluster) daemon(name string, args ...string) {
	cmd := exec.Command(c.bin[name], args...)
	out, err := os.Create(filepath.Join(c.dir, name+".out"))
	if err != nil {
		c.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.conf)
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	c.t.Cleanup(func() {
		// SIGTERM lets the daemon reap its helpers (slurmstepd, slurmscriptd).
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		out.Close()
		if c.t.Failed() {
			for _, f := range []string{name + ".out", name + ".log"} {
				if b, err := os.ReadFile(filepath.Join(c.dir, f)); err == nil {
					c.t.Logf("%s:\n%s", f, tail(string(b), 40))
				}
			}
		}
	})
}

// cmd is a Slurm client command against this cluster.
func (c *slurmCluster) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(c.bin[name], args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.conf)
	return cmd
}

func (c *slurmCluster) waitFor(what string, limit time.Duration, done func() bool) {
	c.t.Helper()
	for deadline := time.Now().Add(limit); !done(); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
	}
}

// TestSlurmArray runs a quick plan end to end under a real single-node
// Slurm: --emit-slurm writes the plan and the sbatch script, sbatch runs one
// array task per plan index with the nspda binary built here, and the table
// is then made from the store without training.
func TestSlurmArray(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Slurm daemons and runs a job array (about 20 s)")
	}
	start := time.Now()
	c := startSlurm(t)
	t.Logf("Slurm up after %.1fs", time.Since(start).Seconds())
	bin := filepath.Join(c.dir, "nspda")
	build := exec.Command(goTool(), "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("nspda built after %.1fs", time.Since(start).Seconds())
	jobs, store := filepath.Join(c.dir, "jobs"), filepath.Join(c.dir, "results")
	stdout, stderr, code := cli(t, "repro", "noise", "--quick", "--emit-slurm", jobs, "--store", store, "--binary", bin)
	if code != 0 {
		t.Fatalf("emit-slurm: exit %d: %s", code, stderr)
	}
	plan, err := experiment.ReadPlan(filepath.Join(jobs, "noise.plan.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.cmd("sbatch", "--parsable", filepath.Join(jobs, "noise.sbatch")).CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v: %s\n(emit-slurm said: %s)", err, out, stdout)
	}
	job := strings.TrimSpace(strings.Split(string(out), ";")[0])
	states := make(map[string]string)
	c.waitFor("the job array to end", 60*time.Second, func() bool {
		b, err := c.cmd("squeue", "-h", "-t", "all", "-j", job, "-o", "%i %T").Output()
		if err != nil {
			return false
		}
		clear(states)
		ended := 0
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			id, state, _ := strings.Cut(line, " ")
			states[id] = state
			if !regexp.MustCompile(`^(PENDING|RUNNING|CONFIGURING|COMPLETING)$`).MatchString(state) {
				ended++
			}
		}
		return ended == len(plan) && len(states) == len(plan)
	})
	t.Logf("job array of %d tasks ended after %.1fs", len(plan), time.Since(start).Seconds())
	for id, state := range states {
		if state != "COMPLETED" {
			log, _ := os.ReadFile(filepath.Join(jobs, "logs", id+".out"))
			t.Errorf("task %s ended %s: %s", id, state, log)
		}
	}
	s := experiment.Store{Dir: store}
	for _, e := range plan {
		if !s.Finished(e.Key) {
			t.Errorf("plan entry %d (%s) is not finished in the store", e.Index, e.Key)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(jobs, "logs", job+"_*.out"))
	if len(logs) != len(plan) {
		t.Errorf("%d task logs for %d tasks", len(logs), len(plan))
	}
	tables := filepath.Join(c.dir, "tables")
	if _, stderr, code := cli(t, "repro", "noise", "--quick", "--tables-only", "--no-figures", "--store", store, "--out", tables); code != 0 {
		t.Fatalf("tables-only: exit %d: %s", code, stderr)
	}
	if md := readFile(t, filepath.Join(tables, "noise.md")); strings.Contains(md, "not run") {
		t.Errorf("table has runs missing:\n%s", md)
	}
}

// goTool finds the go command that is running the tests: go test puts its
// GOROOT/bin first on the PATH.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

func randomKey(t *testing.T) []byte {
	f, err := os.Open("/dev/urandom")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	key := make([]byte, 1024)
	if _, err := f.Read(key); err != nil {
		t.Fatal(err)
	}
	return key
}

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestSlurmScript: the array covers the plan and each task runs its index.
func TestSlurmScript(t *testing.T) {
	s := slurmJob{Name: "nspda-noise", Binary: "/opt/nspda", Plan: "/p/noise plan.jsonl", Store: "/r", Logs: "/p/logs", Tasks: 16, Parallel: 4,
		Options: []string{"--partition=cpu"}}.script()
	for _, want := range []string{"#SBATCH --array=0-15%4\n", "#SBATCH --partition=cpu\n", "#SBATCH --output=/p/logs/%A_%a.out\n",
		`exec '/opt/nspda' run --plan '/p/noise plan.jsonl' --index "$SLURM_ARRAY_TASK_ID" --store '/r'` + "\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
}
