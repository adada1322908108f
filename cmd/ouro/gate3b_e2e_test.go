//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Issue 26, B4–B7 and F through the binary: in -p mode, default permission mode, with
// allow rules for the very commands, each attack is refused (a question -p cannot ask)
// and does not happen; ordinary inspection runs without a rule.
func TestGateOptionsAsTheProgramReadsThem(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e := newEnv(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.txt"), "SECRET-B5-71\n")
	writeFile(t, filepath.Join(e.dir, "README.md"), "first line of the readme\nsecond\n")
	writeFile(t, filepath.Join(e.dir, "victim", "keep.txt"), "keep\n")
	// A committed link to a folder outside, as a hostile repository may hold.
	os.Mkdir(filepath.Join(e.dir, "docs"), 0o755)
	if err := os.Symlink(outside, filepath.Join(e.dir, "docs", "ext")); err != nil {
		t.Fatal(err)
	}
	// A vendored checkout whose config runs a program on `git status`.
	lib := filepath.Join(e.dir, "vendor", "lib")
	if out, err := exec.Command("git", "init", "-q", lib).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	hook := filepath.Join(lib, "fsmon.sh")
	writeFile(t, hook, "#!/bin/sh\ntouch \""+filepath.Join(lib, "PWNED-B7")+"\"\nexit 1\n")
	os.Chmod(hook, 0o755)
	if out, err := exec.Command("git", "-C", lib, "config", "core.fsmonitor", hook).CombinedOutput(); err != nil {
		t.Fatalf("git config: %v %s", err, out)
	}
	turns := []scripted.Turn{
		{ToolCalls: bash("X=-delete; find victim $X")},                                     // B4: the rule Bash(find *)
		{ToolCalls: bash("grep -R SECRET docs")},                                           // B5: a link followed
		{ToolCalls: bash("echo " + filepath.Join(outside, "secret.txt") + " | xargs cat")}, // B5: a list of names
		{ToolCalls: bash("TMPDIR=" + outside + " mktemp")},                                 // B6: the rule Bash(mktemp)
		{ToolCalls: bash("cd vendor/lib && git status")},                                   // B7: the rule Bash(git status)
		{ToolCalls: bash("sed -n 1p README.md")},                                           // F: no rule needed
		{ToolCalls: bash("find README.md victim -type f | xargs wc -l")},                   // F
		{Text: "done"},
	}
	srv := e.fake(turns...)
	// The sandbox off, as a person may have it: the gate alone must hold.
	out, errOut, code := e.run("", "-p", "go", "--allowedTools", "Bash(find *),Bash(mktemp),Bash(git status)",
		"--settings", `{"sandbox": {"enabled": false}}`)
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, errOut)
	}
	res := wtResults(srv)
	if _, err := os.Stat(filepath.Join(e.dir, "victim", "keep.txt")); err != nil {
		t.Errorf("B4: find victim $X ran with X=-delete under Bash(find *): %v\n%s", err, res["toolu_01_01"])
	}
	for _, id := range []string{"toolu_02_01", "toolu_03_01"} {
		if strings.Contains(res[id], "SECRET-B5") {
			t.Errorf("B5: %s read the file outside the workspace: %s", id, res[id])
		}
	}
	if !strings.Contains(res["toolu_02_01"], "the link") || !strings.Contains(res["toolu_03_01"], "outside the workspace") {
		t.Errorf("B5: the refusals do not say what was read outside:\n%s\n%s", res["toolu_02_01"], res["toolu_03_01"])
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("B6: TMPDIR=outside mktemp wrote outside the workspace under Bash(mktemp): %v\n%s", ents, res["toolu_04_01"])
	}
	if _, err := os.Stat(filepath.Join(lib, "PWNED-B7")); err == nil {
		t.Errorf("B7: git status ran the vendored repository's fsmonitor under Bash(git status)\n%s", res["toolu_05_01"])
	}
	if !strings.Contains(res["toolu_05_01"], "core.fsmonitor") {
		t.Errorf("B7: the refusal does not name the key: %s", res["toolu_05_01"])
	}
	if !strings.Contains(res["toolu_06_01"], "first line of the readme") {
		t.Errorf("F: sed -n 1p was not run without a rule: %s", res["toolu_06_01"])
	}
	if !strings.Contains(res["toolu_07_01"], "README.md") {
		t.Errorf("F: find | xargs wc -l was not run without a rule: %s", res["toolu_07_01"])
	}
}
