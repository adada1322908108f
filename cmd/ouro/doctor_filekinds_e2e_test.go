//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// ouro doctor names each file in the project's .claude and the user's ~/.claude that
// Claude Code reads and ouro does not, with its kind; what ouro reads (settings,
// commands) and the script the status line runs are not named. statusLine is honoured
// now: the settings section names it, the section of keys not honoured does not.
func TestDoctorNamesFileKindsNotRead(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "unused"})
	user := filepath.Join(e.home, ".claude")
	proj := filepath.Join(e.dir, ".claude")
	writeFile(t, filepath.Join(user, "settings.json"), `{"statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}, "spinnerTipsEnabled": false}`)
	writeFile(t, filepath.Join(user, "statusline.sh"), "#!/bin/sh\necho hi\n")
	writeFile(t, filepath.Join(user, "keybindings.json"), `{"bindings": []}`)
	writeFile(t, filepath.Join(user, "plugins", "installed_plugins.json"), `{"version": 2, "plugins": {}}`)
	writeFile(t, filepath.Join(user, "shell-snapshots", "snapshot-bash.sh"), "")
	writeFile(t, filepath.Join(proj, "commands", "review.md"), "Review the diff.\n")
	writeFile(t, filepath.Join(proj, "agent-memory", "reviewer", "MEMORY.md"), "notes\n")
	writeFile(t, filepath.Join(proj, "notes.txt"), "mine\n")
	writeFile(t, filepath.Join(e.dir, ".worktreeinclude"), ".env\n")
	if err := os.MkdirAll(filepath.Join(proj, "worktrees"), 0o755); err != nil {
		t.Fatal(err)
	}

	out, stderr, _ := e.run("", "doctor")
	sec := regexp.MustCompile(`(?s)\nfiles ouro sees but does not read\n(.*?)\n\n`).FindStringSubmatch(out)
	if sec == nil {
		t.Fatalf("no file kinds section:\n%s\n%s", out, stderr)
	}
	for _, want := range []string{
		filepath.Join(user, "keybindings.json") + " — Claude Code's custom key bindings, not read by ouro",
		filepath.Join(user, "plugins") + " — plugins and marketplaces Claude Code installed with /plugin",
		filepath.Join(user, "shell-snapshots") + " — Claude Code's own state, not read by ouro",
		filepath.Join(proj, "agent-memory") + " — subagents' persistent memory",
		filepath.Join(proj, "worktrees") + " — Claude Code's worktrees",
		filepath.Join(proj, "notes.txt") + " — a file kind ouro does not know, not read by ouro",
		filepath.Join(e.dir, ".worktreeinclude") + " — the ignored files Claude Code copies into a new worktree, not read by ouro",
	} {
		if !strings.Contains(sec[1], "skipped   "+want) {
			t.Errorf("the section lacks %q:\n%s", want, sec[1])
		}
	}
	for _, read := range []string{"settings.json", "statusline.sh", "commands"} {
		if strings.Contains(sec[1], string(filepath.Separator)+read) {
			t.Errorf("the section names %s, which ouro reads or runs:\n%s", read, sec[1])
		}
	}
	un := regexp.MustCompile(`(?s)\nsettings ouro reads but does not honour\n(.*?)\n\n`).FindStringSubmatch(out)
	if un == nil || !strings.Contains(un[1], "read, not honoured by ouro: spinnerTipsEnabled") || strings.Contains(un[1], "statusLine") {
		t.Fatalf("the unhonoured section:\n%s", out)
	}
	if !strings.Contains(out, "loaded    "+filepath.Join(user, "settings.json")+" — statusLine") {
		t.Fatalf("the settings section does not name the statusLine:\n%s", out)
	}
	if !strings.Contains(out, "\nstatus line\n  loaded    "+filepath.Join(user, "settings.json")+` — runs "~/.claude/statusline.sh" in the terminal interface`) {
		t.Fatalf("the status line section:\n%s", out)
	}

	// A project's statusLine in a folder not trusted: doctor says it would not run.
	e.settings(".claude/settings.json", `{"statusLine": {"type": "command", "command": "./sl.sh"}}`)
	out, _, _ = e.run("", "doctor")
	if !strings.Contains(out, "\nstatus line\n  skipped   "+filepath.Join(proj, "settings.json")+` — "./sl.sh" is not run: this folder is not trusted`) {
		t.Fatalf("the status line section of an untrusted project:\n%s", out)
	}
}
