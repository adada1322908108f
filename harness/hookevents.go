package harness

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
)

// surroundings fires the hook events about the session's surroundings: CwdChanged when
// a call moved the working directory (a cd in Bash, a move into a worktree or back),
// FileChanged and ConfigChange when a watched file or a settings file changes on disk
// (hook.Watcher). Without such hooks it watches nothing.
type surroundings struct {
	hooks *hook.Runner
	bash  *tools.Bash
	watch *hook.Watcher

	mu  sync.Mutex
	cwd string
}

// hookEvents is the part that fires them, in PhaseGate after the guard (so that a call's
// other AfterTool hooks have run when the directory's change is told).
func hookEvents(g *guard, bash *tools.Bash, d dirs, o Access, show func(string), warn io.Writer) (mechanism.Part, error) {
	s := &surroundings{hooks: g.hooks, bash: bash, cwd: bash.Cwd()}
	files := map[string]string{}
	for _, w := range settings.WatchedFiles(settings.LoadOptions{UserHome: d.config, OuroHome: d.home, ProjectDir: d.cwd,
		Settings: o.Settings, Managed: settings.ManagedPaths()}) {
		files[w.Path] = w.Source
	}
	if show == nil {
		show = func(msg string) { fmt.Fprintln(warn, "ouro: "+msg) }
	}
	w, err := g.hooks.Watch(hook.WatchConfig{CWD: s.cwd, Settings: files, OnConfig: func(source, path string, blocked bool, reason string) {
		// ouro reads its settings when a session starts: the session goes on with those
		// whatever the hooks say, and a block is kept by keeping them.
		if blocked {
			show(fmt.Sprintf("A ConfigChange hook blocked the change to %s: %s (this session keeps the settings it started with)", path, reason))
			return
		}
		show(fmt.Sprintf("Settings file %s changed; ouro reads settings when a session starts, so the change applies from the next session", path))
	}})
	if err != nil {
		// A missing inotify (a container without it) must not stop the session.
		fmt.Fprintf(warn, "ouro: hooks: FileChanged and ConfigChange hooks will not fire: watching files failed: %v\n", err)
	}
	s.watch = w
	g.own.watch(w)
	return mechanism.Part{Name: "hook events", Phase: mechanism.PhaseGate, AfterTool: []agent.AfterTool{s},
		Close: func() error { return s.watch.Close() }}, nil
}

// AfterTool tells the CwdChanged hooks when the call moved Bash's working directory;
// what they ask to watch replaces what the watcher watched for the old one.
func (s *surroundings) AfterTool(ctx context.Context, _ tool.Call, _ *tool.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.bash.Cwd()
	if now == s.cwd {
		return
	}
	old := s.cwd
	s.cwd = now
	s.watch.SetCWD(now, s.hooks.CwdChanged(ctx, old, now))
}

// ownWrites tells the watcher what ouro itself wrote to a settings file (a rule the
// person approved for always): that is no change for the ConfigChange hooks.
type ownWrites struct {
	mu sync.Mutex
	w  *hook.Watcher
}

// saving wraps the policy's Saved callback.
func (o *ownWrites) saving(next func(path string, before, after []byte)) func(path string, before, after []byte) {
	return func(path string, before, after []byte) {
		o.mu.Lock()
		w := o.w
		o.mu.Unlock()
		w.Ours(path, after) // before next: the watcher may see the file change meanwhile
		if next != nil {
			next(path, before, after)
		}
	}
}

func (o *ownWrites) watch(w *hook.Watcher) {
	o.mu.Lock()
	o.w = w
	o.mu.Unlock()
}
