package harness

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/settings"
)

// transcript is the session's record: new, or an earlier one being continued with what
// it held.
type transcript struct {
	w        *session.Writer
	resumed  bool
	messages []llm.Message
	// entries are all the entries the resumed transcript held, for the mechanisms that
	// restore their own (mechanism.Env.Resumed).
	entries []mechanism.Entry
}

// pruneSessions deletes, at most once a day, the sessions of every project nobody has
// written to for cleanupPeriodDays (Claude Code's setting, default 30), checkpoints
// included. It says what it removed: history should not vanish without a word.
func pruneSessions(home string, set *settings.Settings, warn io.Writer) {
	now := time.Now()
	if !session.PruneDue(home, now) {
		return
	}
	keep := set.CleanupPeriod()
	p, err := session.Prune(home, now.Add(-keep))
	if err != nil {
		fmt.Fprintf(warn, "ouro: %v\n", err)
	}
	for _, e := range p.Errors {
		fmt.Fprintf(warn, "ouro: prune sessions: %s\n", e)
	}
	if p.Sessions > 0 {
		src := "the default; set cleanupPeriodDays in ~/.claude/settings.json to keep them longer"
		if set.CleanupPeriodDays.Source != "" {
			src = "cleanupPeriodDays in " + set.CleanupPeriodDays.Source
		}
		fmt.Fprintf(warn, "ouro: removed %d session(s) unused for %d days (%s)\n", p.Sessions, int(keep.Hours()/24), src)
	}
}

// spillDir is where large tool and hook outputs are kept for this session.
func (t *transcript) spillDir() string { return filepath.Join(t.w.Dir(), "tool-results") }

func openTranscript(d dirs, modelName string, r Resume, version string, warn io.Writer) (*transcript, error) {
	if r.ID == "" && !r.Latest {
		w, err := session.Create(d.project, session.Meta{ID: r.NewID, Model: modelName, CWD: d.cwd, Version: version})
		if err != nil {
			return nil, fmt.Errorf("create transcript: %w", err)
		}
		return &transcript{w: w}, nil
	}
	var info session.Info
	var err error
	if r.ID != "" {
		info, err = session.Find(d.project, r.ID)
	} else {
		info, err = session.Latest(d.project)
	}
	if err != nil {
		return nil, err
	}
	// Lock the transcript before reading it, so what is read is what the next entry
	// follows; a session another process is writing is forked instead of interleaved.
	w, openErr := session.OpenAppend(info.Path)
	if openErr != nil && !errors.Is(openErr, session.ErrInUse) {
		return nil, fmt.Errorf("reopen transcript: %w", openErr)
	}
	t, err := session.Load(info.Path)
	if err != nil {
		if w != nil {
			w.Close()
		}
		return nil, err
	}
	if w != nil && r.Fork { // --fork-session: the resumed session stays as it was
		w.Close()
		w, err = session.Fork(d.project, t, session.Meta{ID: r.NewID, Model: modelName, CWD: d.cwd, Version: version})
		if err != nil {
			return nil, fmt.Errorf("forking session %s: %w", t.ID, err)
		}
	}
	if w == nil {
		if w, err = session.Fork(d.project, t, session.Meta{Model: modelName, CWD: d.cwd, Version: version}); err != nil {
			return nil, fmt.Errorf("session %s is in use by another ouro process, and forking it failed: %w", t.ID, err)
		}
		fmt.Fprintf(warn, "ouro: session %s is in use by another ouro process; continuing in a new session %s forked from it\n", t.ID, w.ID())
	}
	tr := &transcript{w: w, resumed: true}
	for _, e := range t.Entries {
		tr.entries = append(tr.entries, mechanism.Entry{Type: e.Type, Data: e.Data})
	}
	msgs, repairs := t.Messages()
	for _, w := range t.Warnings {
		fmt.Fprintf(warn, "ouro: transcript %s: %s\n", info.Path, w)
	}
	for _, r := range repairs {
		fmt.Fprintf(warn, "ouro: resumed session repaired: %s\n", r)
	}
	tr.messages = msgs
	return tr, nil
}

// ProjectDirFor is where the state of sessions in cwd is kept under home.
func ProjectDirFor(home, cwd string) string {
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	return session.ProjectDir(home, cwd)
}

// toolRecord is the transcript's account of one executed call: when it ran and whether
// it failed (the result itself is in the user message that follows).
type toolRecord struct {
	ToolUseID string    `json:"tool_use_id"`
	Name      string    `json:"name"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	IsError   bool      `json:"is_error"`
}

// recorder writes a run into the transcript (the loop's Record): each message as it is
// appended, an fsync at each turn end, and the outcome. A write that fails is the run's
// end: the loop does nothing more (see agent.Config.Record), so that --continue never
// finds done work missing from the record and does it again.
type recorder struct {
	w      *session.Writer
	warn   io.Writer
	warned bool
}

func (r *recorder) record(e agent.Event) error {
	var err error
	switch e.Type {
	case agent.EventMessage:
		err = r.w.AppendMessage(*e.Message)
	case agent.EventToolEnd:
		if !e.Start.IsZero() {
			err = r.w.AppendEntry("tool", toolRecord{ToolUseID: e.Call.ID, Name: e.Call.Name,
				Start: e.Start, End: e.End, IsError: e.Result.IsError})
		}
	case agent.EventReplace:
		err = r.w.AppendEntry(session.TypeReplace, map[string]any{"messages": e.Messages})
	case agent.EventTurnEnd:
		err = r.w.Sync()
	case agent.EventOutcome:
		err = r.w.AppendEntry(session.TypeOutcome, e.Outcome)
		if err == nil {
			err = r.w.Sync()
		}
	}
	if err != nil && !r.warned {
		r.warned = true
		fmt.Fprintf(r.warn, "ouro: ERROR: the transcript %s could not be written (%v); the session stops before doing anything more. What it recorded until now is intact: once the disk has room, `ouro --resume %s` continues from there.\n", r.w.Path(), err, r.w.ID())
	}
	return err
}
