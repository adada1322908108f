package checkup

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/doctor"
)

// readKinds are the entries of a Claude Code folder (a project's .claude, the user's
// ~/.claude) that ouro reads: the other sections report them file by file. hooks holds
// the scripts hook commands run (they are run, not read as configuration).
var readKinds = map[string]bool{
	"settings.json": true, "settings.local.json": true, "CLAUDE.md": true,
	"commands": true, "agents": true, "skills": true, "output-styles": true, "rules": true,
	"workflows": true, "hooks": true,
}

// unreadKinds name what Claude Code reads (or keeps) in its folders and ouro does not.
// A row goes when ouro starts reading its kind.
var unreadKinds = map[string]string{
	"keybindings.json":   "Claude Code's custom key bindings",
	"plugins":            "plugins and marketplaces Claude Code installed with /plugin (ouro installs its own under ~/.ouro/plugins with `ouro plugin install`, and loads --plugin-dir)",
	"projects":           "Claude Code's session transcripts and auto memory (ouro keeps its own under ~/.ouro/projects)",
	"agent-memory":       "subagents' persistent memory (an agent's memory: front matter)",
	"agent-memory-local": "subagents' persistent local memory (an agent's memory: front matter)",
	"worktrees":          "Claude Code's worktrees (ouro keeps its own in .ouro/worktrees)",
	"todos":              "Claude Code's todo lists",
	"tasks":              "Claude Code's task lists (ouro keeps its own in its state)",
	"teams":              "Claude Code's agent teams",
	"plans":              "plan mode's saved plans",
	"history.jsonl":      "Claude Code's prompt history",
	".credentials.json":  "Claude Code's claude.ai login",
}

// stateKinds are folders Claude Code keeps its own running state in.
var stateKinds = map[string]bool{
	"shell-snapshots": true, "statsig": true, "ide": true, "debug": true, "file-history": true,
	"session-env": true, "paste-cache": true, "cache": true, "telemetry": true, "downloads": true, "backups": true,
}

// fileKinds names, in the project's .claude folder and the user's ~/.claude, each entry
// ouro sees but does not read, with what it is, and the project's .worktreeinclude. A
// script a hook or the status line runs is not named: it runs.
func (c *checkup) fileKinds(io.Writer) doctor.Section {
	var s doctor.Section
	runs := c.commandsRun()
	for _, dir := range []string{filepath.Join(c.d.CWD, ".claude"), filepath.Join(c.d.Config, ".claude")} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if readKinds[name] || runs(name) {
				continue
			}
			what, ok := unreadKinds[name]
			switch {
			case ok:
			case stateKinds[name]:
				what = "Claude Code's own state"
			default:
				what = "a file kind ouro does not know"
			}
			s.Files = append(s.Files, doctor.File{Path: filepath.Join(dir, name), Status: doctor.Skipped, Detail: what + ", not read by ouro"})
		}
	}
	if p := filepath.Join(c.d.CWD, ".worktreeinclude"); exists(p) {
		s.Files = append(s.Files, doctor.File{Path: p, Status: doctor.Skipped, Detail: "the ignored files Claude Code copies into a new worktree, not read by ouro"})
	}
	sort.SliceStable(s.Files, func(i, j int) bool { return s.Files[i].Path < s.Files[j].Path })
	return s
}

// commandsRun reports whether a hook's or the status line's command names the entry of
// a .claude folder (".claude/statusline.sh").
func (c *checkup) commandsRun() func(name string) bool {
	var cmds []string
	if c.set.StatusLine.Command != "" {
		cmds = append(cmds, c.set.StatusLine.Command)
	}
	for _, ms := range c.set.Hooks {
		for _, m := range ms {
			for _, h := range m.Hooks {
				cmds = append(cmds, h.Command)
				cmds = append(cmds, h.Args...)
			}
		}
	}
	return func(name string) bool {
		for _, cmd := range cmds {
			if strings.Contains(cmd, ".claude/"+name) {
				return true
			}
		}
		return false
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
