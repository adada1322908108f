package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/termsafe"
	"github.com/ouroagent/ouro/tool"
)

// maxOutput bounds what is kept of a hook's stdout and of its stderr while it runs: its
// first and its last half, however much the hook prints.
const maxOutput = 1 << 20

// result is one hook run, classified.
type result struct {
	e   entry
	run Run
	// out is the hook's JSON output (exit 0, parsed and valid); isJSON says it is set.
	out    Output
	isJSON bool
	// text is plain (non-JSON) stdout of a successful run.
	text string
	// block is exit code 2 on an event that can block; the reason is run.Message.
	block bool
	// halt is continue:false.
	halt bool
}

// input returns the payload skeleton for event, with the common fields.
func (r *Runner) input(ctx context.Context, event string) Input {
	mode := "default"
	if r.cfg.PermissionMode != nil {
		if m := r.cfg.PermissionMode(); m != "" {
			mode = m
		}
	}
	cwd := r.cfg.CWD
	if p := r.cwd.Load(); p != nil && *p != "" {
		cwd = *p
	}
	if r.cfg.CWDOf != nil && ctx != nil {
		if d := r.cfg.CWDOf(ctx); d != "" {
			cwd = d // an agent working in a worktree of its own
		}
	}
	return Input{Event: event, SessionID: r.cfg.SessionID, TranscriptPath: r.cfg.TranscriptPath, CWD: cwd, PermissionMode: mode}
}

// fire runs every hook of in.Event that matches, in parallel, each command once, and
// returns the classified results in configuration order. Every run is reported to the
// observer; systemMessages go to the user; continue:false is recorded as a halt.
func (r *Runner) fire(ctx context.Context, in Input) []result {
	all := r.entries(in.Event)
	if len(all) == 0 {
		return nil
	}
	useMatcher := events[in.Event] != ""
	subject := in.subject()
	var sel []entry
	seen := map[string]bool{}
	for _, e := range all {
		if useMatcher && !e.match.matches(subject) {
			continue
		}
		if e.cond != nil && !r.condHolds(*e.cond, in) {
			continue
		}
		if e.fn == nil {
			if seen[e.name()] {
				continue
			}
			seen[e.name()] = true
		}
		sel = append(sel, e)
	}
	if len(sel) == 0 {
		return nil
	}
	payload, err := json.Marshal(in)
	if err != nil {
		// Only a malformed tool input can get here; hooks still run, seeing it as a string.
		in.ToolInput, _ = json.Marshal(string(in.ToolInput))
		payload, _ = json.Marshal(in)
	}
	foreground := sel[:0:0]
	for _, e := range sel {
		if e.async {
			r.start(e, in.Event, payload)
		} else {
			foreground = append(foreground, e)
		}
	}
	if sel = foreground; len(sel) == 0 {
		return nil
	}
	res := make([]result, len(sel))
	var wg sync.WaitGroup
	for i, e := range sel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch {
			case e.fn != nil:
				res[i] = r.runFunc(ctx, e, in)
			case e.url != "":
				res[i] = r.runHTTP(ctx, e, in.Event, payload)
			default:
				res[i] = r.runCommand(ctx, e, in.Event, payload)
			}
		}()
	}
	wg.Wait()
	for i := range res {
		x := &res[i]
		x.out.bound(func(s string) string { return r.fit(s, in.Event) })
		x.e = sel[i]
		x.run.Event = in.Event
		x.run.Matcher = x.e.matcher
		x.run.Command = x.e.name()
		x.run.Source = x.e.source
		if x.isJSON {
			if err := x.out.check(in.Event); err != nil {
				x.isJSON = false
				x.run.Outcome = OutcomeError
				x.run.Message = "invalid hook output: " + err.Error()
			} else {
				x.run.Decision = x.out.decision()
				r.show(x.out.SystemMessage)
				if x.out.Continue != nil && !*x.out.Continue {
					x.halt = true
					r.setHalt(&HaltError{Event: in.Event, Command: x.run.Command, Reason: x.out.StopReason})
				}
			}
		}
		if r.cfg.Observer != nil {
			r.cfg.Observer(x.run)
		}
	}
	return res
}

// runCommand runs one command hook with its timeout, in its own process group so that
// a timeout kills whatever the hook started too.
func (r *Runner) runCommand(ctx context.Context, e entry, event string, payload []byte) result {
	timeout := e.timeout
	if timeout <= 0 {
		timeout = r.cfg.DefaultTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := r.hookCommand(rctx, e)
	cmd.Dir = r.cfg.ProjectDir
	cmd.Env = r.env
	if e.pluginRoot != "" {
		cmd.Env = append(append([]string(nil), r.env...), "CLAUDE_PLUGIN_ROOT="+e.pluginRoot)
	}
	if f, err := r.envFile(event); err != nil {
		r.show(fmt.Sprintf("%s hook %s: %v", event, e.name(), err))
	} else if f != "" {
		cmd.Env = append(append([]string(nil), cmd.Env...), "CLAUDE_ENV_FILE="+f)
	}
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Once killed, do not wait long for pipes some escaped descendant still holds.
	cmd.WaitDelay = 2 * time.Second

	start := time.Now()
	err := startProcess(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	x := result{run: Run{ExitCode: -1, Duration: time.Since(start)}}
	errText := r.fit(strings.TrimSpace(stderr.String()), event)
	switch {
	case ctx.Err() != nil:
		x.run.Outcome = OutcomeCancelled
		x.run.Message = "cancelled before the hook finished"
		return x
	case rctx.Err() != nil:
		x.run.Outcome = OutcomeTimeout
		x.run.Message = fmt.Sprintf("timed out after %s and was killed", timeout)
		return x
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		x.run.Outcome = OutcomeError
		x.run.Message = fmt.Sprintf("could not run: %v", err)
		return x
	}
	x.run.ExitCode = cmd.ProcessState.ExitCode()
	switch x.run.ExitCode {
	case 0:
		x.run.Outcome = OutcomeSuccess
		if stdout.cut() && strings.HasPrefix(strings.TrimSpace(stdout.String()), "{") {
			// Not all of it was kept, so it cannot be read as the JSON it was meant to be.
			x.run.Outcome = OutcomeError
			x.run.Message = fmt.Sprintf("its JSON output is longer than %d bytes, the most kept of a hook's output, so it was ignored", maxOutput)
			return x
		}
		if out, ok := parseOutput(stdout.String()); ok {
			x.out, x.isJSON = out, true
		} else {
			x.text = r.fit(strings.TrimSpace(stdout.String()), event)
		}
	case 2:
		x.run.Message = errText
		if blockable[event] {
			x.run.Outcome = OutcomeBlocked
			x.run.Decision = "block"
			x.block = true
		} else {
			x.run.Outcome = OutcomeError
			r.show(errText)
		}
	default:
		x.run.Outcome = OutcomeError
		x.run.Message = errText
		if x.run.Message == "" {
			x.run.Message = fmt.Sprintf("exit status %d", x.run.ExitCode)
		}
	}
	return x
}

// runFunc runs an in-process hook with the timeout. A Func that ignores its context
// past the timeout is left to finish on its own; its answer is dropped.
func (r *Runner) runFunc(ctx context.Context, e entry, in Input) result {
	rctx, cancel := context.WithTimeout(ctx, r.cfg.DefaultTimeout)
	defer cancel()
	type answer struct {
		out Output
		err error
	}
	ch := make(chan answer, 1)
	start := time.Now()
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- answer{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		out, err := e.fn.Run(rctx, in)
		ch <- answer{out, err}
	}()
	x := result{run: Run{ExitCode: -1}}
	select {
	case a := <-ch:
		x.run.Duration = time.Since(start)
		if a.err != nil {
			x.run.Outcome = OutcomeError
			x.run.Message = r.fit(a.err.Error(), in.Event)
			return x
		}
		x.run.Outcome = OutcomeSuccess
		x.out, x.isJSON = a.out, true
	case <-rctx.Done():
		x.run.Duration = time.Since(start)
		if ctx.Err() != nil {
			x.run.Outcome = OutcomeCancelled
			x.run.Message = "cancelled before the hook finished"
		} else {
			x.run.Outcome = OutcomeTimeout
			x.run.Message = fmt.Sprintf("timed out after %s", r.cfg.DefaultTimeout)
		}
	}
	return x
}

// fit keeps a text a hook produced within the output budget (see Config.SpillDir), its
// control characters shown escaped (termsafe.ForModel): what a hook prints reaches the
// model and the person's screen.
func (r *Runner) fit(text, event string) string {
	return tool.Budget{SpillDir: r.cfg.SpillDir}.Fit(termsafe.ForModel(text), "hook-"+event+"-*")
}

// bound keeps every text of the output within what fit allows.
func (o *Output) bound(fit func(string) string) {
	for _, p := range []*string{&o.StopReason, &o.SystemMessage, &o.Reason} {
		*p = fit(*p)
	}
	if h := o.HookSpecificOutput; h != nil {
		h.PermissionDecisionReason = fit(h.PermissionDecisionReason)
		h.AdditionalContext = fit(h.AdditionalContext)
		if h.Decision != nil {
			h.Decision.Message = fit(h.Decision.Message)
		}
	}
}

// capped keeps the first and the last maxOutput/2 bytes written to it and counts what
// it drops between them, so a chatty hook cannot exhaust memory yet the end of its
// output, where errors usually are, survives. It never fails a write, so the hook never
// sees a broken pipe because of it.
type capped struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // the latest bytes, up to twice the half before it is trimmed
	dropped int64
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	const half = maxOutput / 2
	if room := half - len(c.head); room > 0 {
		k := min(len(p), room)
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*half {
		drop := len(c.tail) - half
		c.dropped += int64(drop)
		c.tail = append([]byte(nil), c.tail[drop:]...)
	}
	return n, nil
}

// cut reports whether bytes were dropped.
func (c *capped) cut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped > 0 || len(c.tail) > maxOutput/2
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	const half = maxOutput / 2
	tail, dropped := c.tail, c.dropped
	if len(tail) > half {
		dropped += int64(len(tail) - half)
		tail = tail[len(tail)-half:]
	}
	if dropped == 0 {
		return string(c.head) + string(tail)
	}
	// The cuts may fall inside a character.
	return strings.ToValidUTF8(string(c.head), "") +
		fmt.Sprintf("\n[… %d bytes of the hook's output were not kept …]\n", dropped) +
		strings.ToValidUTF8(string(tail), "")
}
