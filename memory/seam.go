package memory

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Seam adds instructions as the agent reaches the files they are for: a path-scoped
// rule when a file matching its paths: is first read or edited, a nested CLAUDE.md or
// AGENTS.md when a file in its folder is. As in Claude Code they arrive as a
// <system-reminder> user message before the next model call, never as a change to the
// system prompt (which stays cached).
//
// Each file is added once: what the conversation holds is the record (Given), so
// a resumed session does not repeat them, and after a summary (which keeps only the
// start-up instructions) they are added again on the next read that needs them.
type Seam struct {
	od *OnDemand
	// tools say what calls do (nil: Claude Code's tools by name).
	tools tool.CallDescriber
	cwd   string
	warn  func(format string, args ...any)

	// loaded is told of each file given (see OnLoaded).
	loaded func(context.Context, Loaded)

	mu      sync.Mutex
	touched []string
	warned  map[string]bool
}

// OnLoaded makes f be told of each file the seam gives the model: a rule whose paths:
// match the file read (path_glob_match), or a folder's instruction file
// (nested_traversal). Call it before the session starts.
func (d *Seam) OnLoaded(f func(context.Context, Loaded)) { d.loaded = f }

// NewSeam is the on-demand instructions of od for a session in cwd, as the loop's
// AfterTool and BeforeModel seams; tools say what calls do (nil: Claude Code's tools by
// name); warn tells each warning once.
func NewSeam(od *OnDemand, cwd string, tools tool.CallDescriber, warn func(format string, args ...any)) *Seam {
	return &Seam{od: od, tools: tools, cwd: cwd, warn: warn}
}

var (
	_ agent.AfterTool   = (*Seam)(nil)
	_ agent.BeforeModel = (*Seam)(nil)
)

// AfterTool notes the files a successful call read or wrote, as its tool describes it
// (tool.Action: a Read or Write of paths, not a search of folders).
func (d *Seam) AfterTool(_ context.Context, c tool.Call, r *tool.Result) {
	if r.IsError {
		return
	}
	describe := tool.DescribeByName
	if d.tools != nil {
		describe = d.tools.Describe
	}
	acts, err := describe(c)
	if err != nil {
		return
	}
	for _, a := range acts {
		if (a.Kind != tool.ActRead && a.Kind != tool.ActWrite) || a.Search {
			continue
		}
		for _, p := range a.Paths {
			d.touch(p)
		}
	}
}

// touch notes file p (relative to the working directory unless absolute).
func (d *Seam) touch(p string) {
	if p == "" {
		return
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(d.cwd, p)
	}
	d.mu.Lock()
	d.touched = append(d.touched, filepath.Clean(p))
	d.mu.Unlock()
}

// BeforeModel adds what the files worked on since the last call bring, one message.
func (d *Seam) BeforeModel(ctx context.Context, t *agent.Turn) error {
	d.mu.Lock()
	touched := d.touched
	d.touched = nil
	d.mu.Unlock()
	if len(touched) == 0 {
		return nil
	}
	var have map[string]bool // built on the first file that brings anything
	var blocks []llm.Block
	for _, p := range touched {
		if have == nil {
			have = given(t.Conv.Messages)
		}
		found, warns := d.od.For(p, func(path string) bool { return have[path] })
		d.report(warns)
		if len(found) == 0 {
			continue
		}
		for _, f := range found {
			have[f.Path] = true
			l := Loaded{Path: f.Path, MemoryType: memoryType(f.Path, d.od.Home), Reason: ReasonNestedTraversal, Trigger: p}
			if f.Globs != nil {
				l.Reason, l.Globs = ReasonPathGlobMatch, f.Globs
			}
			tell(ctx, d.loaded, []Loaded{l})
		}
		blocks = append(blocks, llm.TextBlock(Reminder(p, found)))
	}
	t.AppendUser(blocks...)
	return nil
}

// report shows each warning once a session.
func (d *Seam) report(warns []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, w := range warns {
		if d.warned == nil {
			d.warned = map[string]bool{}
		}
		if !d.warned[w] {
			d.warned[w] = true
			d.warn("instructions: %s", w)
		}
	}
}

// given are the instruction files the conversation's reminders hold.
func given(msgs []llm.Message) map[string]bool {
	have := map[string]bool{}
	for _, m := range msgs {
		if m.Role != llm.RoleUser {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "text" {
				for _, p := range Given(b.Text) {
					have[p] = true
				}
			}
		}
	}
	return have
}
