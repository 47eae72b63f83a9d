package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium returns the path of a Chromium browser, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (Debian: apt-get install chromium; .ci/run installs it where it can): the page is not checked in a browser")
	return ""
}

// dumpDOM loads url in headless Chromium, with nothing fetched from the
// network, and returns the DOM after the page's script ran.
func dumpDOM(t *testing.T, browser, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--dump-dom", url)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v", url, err)
	}
	return string(out)
}

func attr(dom, name string) string {
	m := regexp.MustCompile(`<body[^>]*\bdata-` + name + `="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		return "(missing)"
	}
	return m[1]
}

// TestTracePageInBrowser: the trace page of a programmed Dyck-2 network,
// with a 960-symbol string among others, runs in headless Chromium without
// an error; its tape holds one step per symbol plus the end marker; and its
// last step shows the verdict nspda classify gives.
func TestTracePageInBrowser(t *testing.T) {
	browser := chromium(t)
	m := programmed(t, "dyck2")
	long := strings.Repeat("([", 240) + strings.Repeat("])", 240)
	strs := []string{"([])", "(]", long, long[:959] + "("}
	page := filepath.Join(t.TempDir(), "trace.html")
	args := append([]string{"trace", "--model", m, "--html", page}, strs...)
	if _, errs, code := cli(t, args...); code != 0 {
		t.Fatal(errs)
	}
	classified, errs, code := cli(t, append([]string{"classify", "--model", m}, strs...)...)
	if code != 0 {
		t.Fatal(errs)
	}
	var verdicts []string // classify prints one line per string: verdict, y, string
	for _, line := range strings.Split(strings.TrimSpace(classified), "\n") {
		verdicts = append(verdicts, strings.Fields(line)[0])
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`(?i)(src|href)="?(https?:)?//`).Match(html) {
		t.Error("the page refers to something outside itself")
	}
	for i, s := range strs {
		start := time.Now()
		dom := dumpDOM(t, browser, fmt.Sprintf("file://%s#run=%d&step=last", page, i))
		elapsed := time.Since(start)
		if !strings.Contains(dom, `data-errors="0"`) || attr(dom, "ready") != "1" {
			t.Fatalf("string %d: the script failed: %s", i, regexp.MustCompile(`(?s)<pre id="errors".*?</pre>`).FindString(dom))
		}
		if n := strings.Count(dom, `data-i="`); n != len(s)+1 {
			t.Errorf("string %d: %d steps in the DOM, want %d (symbols and the end marker)", i, n, len(s)+1)
		}
		want := verdicts[i]
		if got := attr(dom, "verdict"); got != want {
			t.Errorf("string %d: the last step shows %q, classify says %q", i, got, want)
		}
		if got := attr(dom, "step"); got != fmt.Sprint(len(s)+1) {
			t.Errorf("string %d: at step %s, want the last, %d", i, got, len(s)+1)
		}
		t.Logf("string %d (%d symbols): loaded in Chromium in %v", i, len(s), elapsed.Round(time.Millisecond))
	}
}

// TestTracePageTopAcceptance: the page of a network whose acceptance
// depends on the top shows accept_with_top beside the automaton, and its
// script runs without errors.
func TestTracePageTopAcceptance(t *testing.T) {
	browser := chromium(t)
	m := programmed(t, filepath.Join("..", "..", "grammar", "testdata", "topaccept.yaml"))
	page := filepath.Join(t.TempDir(), "trace.html")
	if _, errs, code := cli(t, "trace", "--model", m, "--html", page, "ab", "abc"); code != 0 {
		t.Fatal(errs)
	}
	for i, want := range []string{"reject", "accept"} {
		dom := dumpDOM(t, browser, fmt.Sprintf("file://%s#run=%d&step=last", page, i))
		if !strings.Contains(dom, `data-errors="0"`) || attr(dom, "ready") != "1" {
			t.Fatalf("string %d: the script failed: %s", i, regexp.MustCompile(`(?s)<pre id="errors".*?</pre>`).FindString(dom))
		}
		if got := attr(dom, "verdict"); got != want {
			t.Errorf("string %d: verdict %q, want %q", i, got, want)
		}
		if !strings.Contains(dom, "q1 accepts with a, ⊥") {
			t.Errorf("string %d: the page does not show accept_with_top: %s", i, regexp.MustCompile(`(?s)<[^>]*id="autoinfo".*?<`).FindString(dom))
		}
	}
}
