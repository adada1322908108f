package tui

import (
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/statusline"
)

// statusMsg is the status line's text to show ("" shows none).
type statusMsg string

// status runs the session's statusLine command (package statusline) and counts what its
// input holds that the session does not keep: tokens, cost, durations, lines changed. A
// nil status does nothing.
type status struct {
	e       *replEngine
	version string

	mu      sync.Mutex
	line    *statusline.Line
	sess    *harness.Session
	base    statusline.Input // what the session said of itself when it opened
	opened  time.Time
	totals  agent.Outcome
	usage   *statusline.Usage
	in, out int
	added   int
	removed int
	edits   map[string][2]int // a call's id → the lines its diff adds and removes
}

// open starts the status line of a session (a new one replaces the last one's).
func (st *status) open(s *harness.Session) {
	if st == nil {
		return
	}
	base := s.StatusInput() // read here, on the goroutine that may change the session
	st.mu.Lock()
	old := st.line
	if st.sess == nil || st.sess.ID() != s.ID() { // a new session, not the same one reopened (/model)
		st.opened = time.Now()
		st.totals, st.usage, st.in, st.out, st.added, st.removed = agent.Outcome{}, nil, 0, 0, 0, 0
	}
	st.line, st.sess, st.base = nil, s, base
	st.edits = map[string][2]int{}
	st.mu.Unlock()
	if old != nil {
		old.Stop()
		st.e.send(statusMsg(""))
	}
	sl, run, why := s.StatusLine()
	if why != "" {
		st.e.send(outputMsg("ouro: " + why + "\n"))
	}
	if run == nil {
		return
	}
	line := statusline.Start(st.e.ctx, statusline.Config{
		Command: sl.Command, Padding: sl.Padding, Every: time.Duration(sl.RefreshInterval) * time.Second,
		Run: run, Input: st.input, Show: func(text string) { st.e.send(statusMsg(text)) },
	})
	st.mu.Lock()
	st.line = line
	st.mu.Unlock()
}

// refresh asks for a new run (debounced by the line).
func (st *status) refresh() {
	if st == nil {
		return
	}
	st.mu.Lock()
	l := st.line
	st.mu.Unlock()
	if l != nil {
		l.Refresh()
	}
}

// observe counts what an event changes, and refreshes on a new answer.
func (st *status) observe(ev agent.Event, diff []diffLine) {
	if st == nil {
		return
	}
	st.mu.Lock()
	changed := false
	switch ev.Type {
	case agent.EventToolStart:
		if ev.Call != nil && len(diff) > 0 {
			var n [2]int
			for _, d := range diff {
				switch d.op {
				case '+':
					n[0]++
				case '-':
					n[1]++
				}
			}
			st.edits[ev.Call.ID] = n
		}
	case agent.EventToolEnd:
		if ev.Call != nil {
			if n, ok := st.edits[ev.Call.ID]; ok && ev.Result != nil && !ev.Result.IsError {
				st.added, st.removed = st.added+n[0], st.removed+n[1]
			}
			delete(st.edits, ev.Call.ID)
		}
	case agent.EventMessage:
		if r := ev.Response; r != nil {
			u := r.Usage
			st.usage = &statusline.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				CacheCreationInputTokens: u.CacheCreationInputTokens, CacheReadInputTokens: u.CacheReadInputTokens}
			st.in += u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
			st.out += u.OutputTokens
			changed = true
		}
	}
	st.mu.Unlock()
	if changed {
		st.refresh()
	}
}

// ended takes the session's totals after a run.
func (st *status) ended(totals agent.Outcome) {
	if st == nil {
		return
	}
	st.mu.Lock()
	st.totals = totals
	st.mu.Unlock()
	st.refresh()
}

// input is the status line's input now.
func (st *status) input() statusline.Input {
	st.mu.Lock()
	defer st.mu.Unlock()
	in := st.base
	in.CWD = st.sess.Workspace.CWD() // moves with EnterWorktree
	in.Workspace.CurrentDir = in.CWD
	in.Version = st.version
	in.Cost = statusline.Cost{TotalCostUSD: st.totals.CostUSD, TotalDurationMS: time.Since(st.opened).Milliseconds(),
		TotalAPIDurationMS: st.totals.APIDuration.Milliseconds(), TotalLinesAdded: st.added, TotalLinesRemoved: st.removed}
	in.ContextWindow.TotalInputTokens, in.ContextWindow.TotalOutputTokens = st.in, st.out
	if st.usage != nil {
		in.ContextWindow.SetUsage(*st.usage)
		u := st.usage
		in.Exceeds200k = u.InputTokens+u.CacheCreationInputTokens+u.CacheReadInputTokens > 200_000
	}
	return in
}
