//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// A session whose transcript cannot be written (the disk is full) stops before its next
// side effect, with a clear error and a failing exit status; what it recorded is intact,
// and --continue goes on from there without running again a call that already ran.
//
// The full disk is a file size limit (RLIMIT_FSIZE, set by prlimit for the ouro process
// alone): the transcript is the file that grows, and a write past the limit fails with
// EFBIG after writing what fits, as on a disk that fills mid-line.
func TestFullDiskStopsTheSessionBeforeItsNextStep(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is not installed: no way to limit the file size of the ouro process alone")
	}
	e := newEnv(t)
	marker := filepath.Join(e.dir, "marker.txt")
	// The second answer is larger than the limit: it cannot be recorded, so its call must
	// not run.
	big := "echo two >> marker.txt # " + strings.Repeat("x", 200_000)
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("echo one >> marker.txt")},
		scripted.Turn{ToolCalls: bash(big)},
		scripted.Turn{Text: "the run went on after its transcript failed"},
	)
	c := exec.Command(prlimit, "--fsize=65536", "--", binary, "-p", "go", "--permission-mode", "bypassPermissions")
	c.Dir, c.Env = e.dir, e.vars
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err = c.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("ouro on a full disk: %v; want a failing exit status\nstdout %q\nstderr %s", err, stdout.String(), stderr.String())
	}
	if code := ee.ExitCode(); code != 1 {
		t.Errorf("exit %d, want 1 (failed)\n%s", code, stderr.String())
	}
	for _, want := range []string{"could not be written", "file too large", "stops before doing anything more", "--resume"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, clipOut(stderr.String()))
		}
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model calls; want 2 (none after the failed write)", n)
	}
	if b, _ := os.ReadFile(marker); string(b) != "one\n" {
		t.Fatalf("marker %q: the call whose message could not be recorded ran (or the first did not)", b)
	}

	// With room again, --continue goes on from what was recorded: the first call is in
	// the history (it is not run again), the lost one is not.
	again := bash("echo two >> marker.txt")
	again[0].ID = "toolu_continued" // the script's own ids start again from 1
	srv2 := e.fake(
		scripted.Turn{ExpectContains: "go on", ToolCalls: again},
		scripted.Turn{Text: "done"},
	)
	out, stderr2, code := e.run("", "--continue", "-p", "go on", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("continue: exit %d, out %q\n%s", code, out, clipOut(stderr2))
	}
	first := string(srv2.Requests()[0].Body)
	if !strings.Contains(first, "echo one") {
		t.Error("the recorded first call is not in the continued history")
	}
	if strings.Contains(first, "xxxxxxxxxx") {
		t.Error("the answer that could not be recorded is in the continued history")
	}
	if b, _ := os.ReadFile(marker); string(b) != "one\ntwo\n" {
		t.Errorf("marker %q after --continue: a step was repeated or lost", b)
	}
}
