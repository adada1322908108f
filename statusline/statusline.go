// Package statusline runs Claude Code's statusLine command for the terminal interface:
// the command reads the session's state as JSON on stdin (Input) and the first line it
// prints is shown under the input, colours kept, every other escape sequence shown
// escaped. It runs as Claude Code runs it: at the start, again (debounced, 300 ms) when
// the state changes (a new answer, the mode, the model), every refreshInterval if one is
// set, never two at a time (a newer request stops the one that runs), each with its own
// timeout (5 s) after which it is killed with everything it started. A command that
// fails or is slow shows nothing and never holds up the screen.
//
// The command is the person's configuration, like a hook's: it runs through the hooks'
// runner (Runner), and which settings file may give it is decided by settings and the
// caller (a project's only in a trusted folder).
package statusline

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/termsafe"
)

// Defaults, as in Claude Code.
const (
	DefaultDebounce = 300 * time.Millisecond
	DefaultTimeout  = 5 * time.Second
)

// maxWidth bounds the line kept (the screen cuts it to its width).
const maxWidth = 4096

// Runner runs one command with stdin as its input (hook.Runner.Command).
type Runner interface {
	Command(ctx context.Context, command string, stdin []byte, timeout time.Duration) (string, error)
}

// Config configures a Line.
type Config struct {
	Command string
	// Padding insets the line by that many columns.
	Padding int
	// Every, when above 0, also runs the command that often.
	Every time.Duration
	Run   Runner
	// Input is the session's state now; it is called once per run.
	Input func() Input
	// Show receives the text to show (already made safe): "" when the command failed,
	// timed out or printed nothing. It is called from the Line's goroutine.
	Show func(text string)
	// Debounce and Timeout default to DefaultDebounce and DefaultTimeout.
	Debounce, Timeout time.Duration
	// Failed, when set, is told why a run showed nothing (for diagnostics, not the screen).
	Failed func(err error)
}

// Line is one session's status line. Refresh may be called from any goroutine.
type Line struct {
	cfg  Config
	kick chan struct{}
	stop context.CancelFunc
	done chan struct{}
}

// Start runs the command at once and then whenever Refresh asks, until ctx ends or
// Stop is called.
func Start(ctx context.Context, cfg Config) *Line {
	if cfg.Debounce <= 0 {
		cfg.Debounce = DefaultDebounce
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	ctx, stop := context.WithCancel(ctx)
	l := &Line{cfg: cfg, kick: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	go l.loop(ctx)
	return l
}

// Refresh asks for a new run: it starts DefaultDebounce after the last request, so a
// burst of changes runs the command once.
func (l *Line) Refresh() {
	select {
	case l.kick <- struct{}{}:
	default: // one is pending already
	}
}

// Stop ends the Line, killing a run in progress, and waits for it.
func (l *Line) Stop() {
	l.stop()
	<-l.done
}

// loop owns the runs: one at a time, a newer request cancels the one in progress (its
// answer is dropped), and the next starts only once it has ended.
func (l *Line) loop(ctx context.Context) {
	defer close(l.done)
	var tick <-chan time.Time
	if l.cfg.Every > 0 {
		t := time.NewTicker(l.cfg.Every)
		defer t.Stop()
		tick = t.C
	}
	var debounce *time.Timer
	var fire <-chan time.Time
	var cancel context.CancelFunc = func() {}
	var ended chan string
	pending := true // the first run, at the start
	startNow := func() {
		pending = false
		rctx, c := context.WithCancel(ctx)
		cancel = c
		ended = make(chan string, 1)
		ch := ended
		in := l.cfg.Input()
		go func() { ch <- l.runOnce(rctx, in) }()
	}
	startNow()
	for {
		select {
		case <-ctx.Done():
			cancel()
			if ended != nil {
				<-ended
			}
			return
		case <-l.kick:
			if debounce == nil {
				debounce = time.NewTimer(l.cfg.Debounce)
			} else {
				debounce.Reset(l.cfg.Debounce)
			}
			fire = debounce.C
			continue
		case <-fire:
			fire = nil
		case <-tick:
		case text := <-ended:
			ended = nil
			cancel()
			if text != stale {
				l.cfg.Show(text)
			}
			if pending {
				startNow()
			}
			continue
		}
		// A run is due.
		pending = true
		if ended != nil {
			cancel() // the newer state wins; the next run starts when this one ended
			continue
		}
		startNow()
	}
}

// stale marks a run cancelled for a newer one: nothing is shown for it.
const stale = "\x00stale"

func (l *Line) runOnce(ctx context.Context, in Input) string {
	in.HookEventName = "Status"
	payload, err := json.Marshal(in)
	if err != nil {
		return ""
	}
	out, err := l.cfg.Run.Command(ctx, l.cfg.Command, payload, l.cfg.Timeout)
	if ctx.Err() != nil {
		return stale
	}
	if err != nil {
		if l.cfg.Failed != nil {
			l.cfg.Failed(err)
		}
		return ""
	}
	return Text(out, l.cfg.Padding)
}

// Text is what is shown of a command's output: its first line that is not blank,
// without the blanks around it, colours (SGR) kept and every other control shown
// escaped, inset by padding columns; "" when it printed nothing.
func Text(out string, padding int) string {
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(strings.TrimSuffix(l, "\r")); l != "" {
			line = l
			break
		}
	}
	if line == "" {
		return ""
	}
	if len(line) > maxWidth {
		line = strings.ToValidUTF8(line[:maxWidth], "")
	}
	return strings.Repeat(" ", max(padding, 0)) + termsafe.KeepColour(line)
}
