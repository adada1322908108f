package hook

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
)

// MaxRewakes bounds how many times in a row asyncRewake hooks may wake the model without
// a new prompt from the user: a hook that fails on every change the model makes would
// otherwise keep the session busy for ever.
const MaxRewakes = 8

// background runs the async hooks of a Runner (and of the runners scoped from it): each
// in its own process group, under a context Close cancels, so none outlives the session.
// What they answer waits in pending until the model's next request.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	rewaking int           // asyncRewake hooks still running
	changed  chan struct{} // closed (and replaced) when rewaking drops
	pending  []string      // context for the model's next request
	rewakes  []string      // what asyncRewake hooks said on exit 2, not yet delivered
	woken    int           // rewakes delivered since the user's last prompt
	issued   map[string]bool
	envDir   string // the CLAUDE_ENV_FILE folder (envfile.go), "" until made
	envSeq   int    // CLAUDE_ENV_FILE files handed out
}

func newBackground() *background {
	ctx, cancel := context.WithCancel(context.Background())
	return &background{ctx: ctx, cancel: cancel, changed: make(chan struct{}), issued: map[string]bool{}}
}

// start runs e in the background for event with payload. It returns at once.
func (r *Runner) start(e entry, event string, payload []byte) {
	bg := r.bg
	bg.mu.Lock()
	if bg.closed {
		bg.mu.Unlock()
		return
	}
	if e.rewake {
		bg.rewaking++
	}
	bg.wg.Add(1)
	bg.mu.Unlock()
	go func() {
		defer bg.wg.Done()
		x := r.runCommand(bg.ctx, e, event, payload)
		r.finishAsync(e, event, x)
	}()
}

// finishAsync reports an async run and keeps what it says for the model: its
// additionalContext and systemMessage (as Claude Code delivers them, at the next request),
// or, for an asyncRewake hook that exited 2, its stderr as a wake-up. An async hook
// cannot block or decide anything: the action it ran for has gone on.
func (r *Runner) finishAsync(e entry, event string, x result) {
	x.e = e
	x.run.Event, x.run.Matcher, x.run.Command, x.run.Source = event, e.matcher, e.name(), e.source
	var note, wake string
	switch {
	case x.isJSON:
		x.out.bound(func(s string) string { return r.fit(s, event) })
		if err := x.out.check(event); err != nil {
			x.run.Outcome, x.run.Message = OutcomeError, "invalid hook output: "+err.Error()
			break
		}
		r.show(x.out.SystemMessage)
		var parts []string
		if s := strings.TrimSpace(x.out.SystemMessage); s != "" {
			parts = append(parts, s)
		}
		parts = appendContext(parts, x.out)
		note = strings.Join(parts, "\n")
	case x.run.ExitCode == 2 && e.rewake:
		x.run.Decision = "block"
		wake = orDefault(x.run.Message, fmt.Sprintf("the background hook %s exited with code 2 without saying why", e.name()))
	case x.run.ExitCode == 2 && x.run.Message != "" && blockable[event]:
		r.show(x.run.Message) // it can no longer block: the user is told
	}
	if note != "" {
		note = fmt.Sprintf("%s hook (async, %s) says:\n%s", event, e.name(), note)
	}
	if wake != "" {
		wake = fmt.Sprintf("%s hook %s (asyncRewake) exited with code 2:\n%s", event, e.name(), wake)
	}
	deliver, onWake := r.cfg.Deliver, r.cfg.OnRewake
	bg := r.bg
	bg.mu.Lock()
	if note != "" && deliver == nil {
		bg.pending = append(bg.pending, note)
	}
	dropped := false
	if wake != "" {
		switch {
		case bg.woken+len(bg.rewakes) >= MaxRewakes:
			dropped = true
		case onWake != nil:
			bg.woken++
			bg.issued[wake] = true
		case deliver != nil:
			bg.woken++
		default:
			bg.rewakes = append(bg.rewakes, wake)
		}
	}
	if e.rewake {
		bg.rewaking--
		close(bg.changed)
		bg.changed = make(chan struct{})
	}
	bg.mu.Unlock()
	if deliver != nil && note != "" {
		deliver(note)
	}
	switch {
	case dropped:
		r.show(fmt.Sprintf("the asyncRewake hook %s asked to wake the model again; ignored: %d wake-ups in a row without a prompt from you is the limit", e.name(), MaxRewakes))
	case wake != "" && onWake != nil:
		onWake(wake)
	case wake != "" && deliver != nil:
		deliver(wake)
	}
	// Reported last: once the run is in the audit, what it said has been delivered.
	if r.cfg.Observer != nil {
		r.cfg.Observer(x.run)
	}
}

// waitRewake waits until no asyncRewake hook is running, or ctx ends.
func (bg *background) waitRewake(ctx context.Context) {
	for {
		bg.mu.Lock()
		n, ch := bg.rewaking, bg.changed
		bg.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// takeRewakes returns the wake-ups not yet delivered and counts them as delivered.
func (bg *background) takeRewakes() []string {
	bg.mu.Lock()
	defer bg.mu.Unlock()
	w := bg.rewakes
	bg.rewakes = nil
	bg.woken += len(w)
	return w
}

// deliver adds what async hooks left for the model to the request about to be sent, as
// one user message (kept in the conversation, so the transcript has it).
func (r *Runner) deliver(t *agent.Turn) {
	bg := r.bg
	bg.mu.Lock()
	notes := append(bg.pending, bg.rewakes...)
	bg.woken += len(bg.rewakes)
	bg.pending, bg.rewakes = nil, nil
	bg.mu.Unlock()
	if len(notes) == 0 {
		return
	}
	blocks := make([]llm.Block, len(notes))
	for i, n := range notes {
		blocks[i] = llm.TextBlock(n)
	}
	t.AppendUser(blocks...)
}

// UserPrompt says a turn starts with prompt: unless it is a wake-up the runner handed
// to OnRewake, the user sent a prompt of their own, and asyncRewake hooks may wake the
// model MaxRewakes times again.
func (r *Runner) UserPrompt(prompt string) {
	r.bg.mu.Lock()
	defer r.bg.mu.Unlock()
	if r.bg.issued[prompt] {
		delete(r.bg.issued, prompt)
		return
	}
	r.bg.woken = 0
}

// PendingWake returns the text asyncRewake hooks left for the model and not yet delivered
// ("" when none), without taking it: a REPL that is idle can start a turn for it.
func (r *Runner) PendingWake() string {
	r.bg.mu.Lock()
	defer r.bg.mu.Unlock()
	return strings.Join(r.bg.rewakes, "\n\n")
}

// Close ends the async hooks still running (their whole process groups) and waits for
// them to be reaped. Hooks fired afterwards do not start in the background. Call it once
// the session's last hooks (SessionEnd) have run.
func (r *Runner) Close() {
	bg := r.bg
	bg.mu.Lock()
	bg.closed = true
	bg.mu.Unlock()
	bg.cancel()
	bg.wg.Wait()
	bg.mu.Lock()
	bg.removeEnvDir()
	bg.mu.Unlock()
}
