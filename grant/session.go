package grant

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/mechanism"
)

// Session keeps what the agent writes from granting it power later (package grant): a
// skill's allowed-tools, an agent's looser permissionMode, and the hooks of an agent, a
// skill or a plugin count only when the file is the user's own, or the user approved its
// content once.
type Session struct {
	ledger  *Ledger
	watch   *Watch
	approve func(path, what, why string) bool
	warn    io.Writer

	mu     sync.Mutex
	warned map[string]bool
	part   mechanism.Part
}

// Begin starts watching the skill, command and agent folders and the settings files of
// the project (in cwd, its state in project) and the user (their configuration in
// config, ouro's in home), and extra (plugins' folders), for session sessionID; every
// change is recorded at the end of each turn in which a tool ran (and when the session
// closes); a turn without tool calls costs no scan. (It once skipped turns of tools
// named read-only in a list here; the permission layer no longer keeps such lists.) approve asks the user
// about a file that may not grant by itself (nil: nobody to ask).
func Begin(project, cwd, config, home, sessionID string, approve func(path, what, why string) bool, warn io.Writer, extra ...string) *Session {
	l := Open(project)
	watched := append(Dirs(cwd, config), SettingsFiles(cwd, config, home)...)
	g := &Session{ledger: l, watch: l.Start(sessionID, append(watched, extra...)), approve: approve, warn: warn, warned: map[string]bool{}}
	dirty := false
	g.part = mechanism.Part{Name: "grants", Phase: mechanism.PhaseState, Observers: []agent.Observer{func(e agent.Event) {
		switch {
		case e.Type == agent.EventToolEnd:
			dirty = true
		case e.Type == agent.EventTurnEnd && dirty:
			dirty = false
			g.check()
		}
	}}}
	return g
}

// Part is the grants' part of the session (PhaseState): its observer checks the
// watched files at the end of each turn that may have written.
func (g *Session) Part() mechanism.Part { return g.part }

// check records the grant-bearing files changed since the last check.
func (g *Session) check() {
	_, err := g.watch.Check()
	g.report(err)
}

// report warns, once, that the ledger could not be written.
func (g *Session) report(err error) {
	if err != nil {
		g.once("ledger", fmt.Sprintf("ouro: WARNING: recording agent-written skill, agent and settings files in %s failed (%v); they may grant permissions in a later session without review\n", g.ledger.Path(), err))
	}
}

// Wrote records a settings file ouro changed on the person's word (see Watch.Wrote).
func (g *Session) Wrote(path string, before, after []byte) {
	g.report(g.watch.Wrote(path, before, after))
}

// Close records what the session's last turn and its SessionEnd hooks changed and
// closes the watch's open snapshot.
func (g *Session) Close() { g.report(g.watch.Close()) }

// Allow reports whether the file at path may grant what (for the message): it may when
// the user wrote it, or approves it now; a file changed since the session started, or
// written by an earlier session and not reviewed, may not.
func (g *Session) Allow(path, what string) bool {
	content, err := os.ReadFile(path)
	if err != nil {
		g.once(path, fmt.Sprintf("ouro: %s: %s ignored: the file cannot be read (%v)\n", path, what, err))
		return false
	}
	why := ""
	if start := g.watch.Started(path); start != Hash(content) {
		why = "it changed after this session started"
	} else if ok, w, _ := g.ledger.Trusted(path, content); !ok {
		why = w
	}
	if why == "" {
		return true
	}
	if g.approve != nil && g.approve(path, what, why) {
		if err := g.ledger.Approve(path, content); err != nil {
			fmt.Fprintf(g.warn, "ouro: recording the approval of %s: %v\n", path, err)
		}
		return true
	}
	g.once(path, fmt.Sprintf("ouro: %s: %s ignored: %s; review the file (your own edit of it, or approving it when the REPL asks, lets it grant)\n", path, what, why))
	return false
}

func (g *Session) once(key, msg string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.warned[key] {
		g.warned[key] = true
		fmt.Fprint(g.warn, msg)
	}
}
