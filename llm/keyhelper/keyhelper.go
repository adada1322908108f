// Package keyhelper runs Claude Code's apiKeyHelper: a command from the person's own (or
// managed) settings whose standard output is the API key. Claude Code's settings page
// says the value "will be sent as X-Api-Key and Authorization: Bearer headers", that the
// command runs in /bin/sh, and its IAM page that the key is asked for again after
// CLAUDE_CODE_API_KEY_HELPER_TTL_MS (5 minutes by default) and at once on an HTTP 401.
//
// The command is the person's own program text, run as their hooks are: under the
// sandbox launcher's supervision where the binary has it (nothing it leaves running
// outlives it), without ouro's own credentials in its environment. What it prints is data:
// trimmed, bounded, refused when it holds what no header value may, never shown.
package keyhelper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/credenv"
	"github.com/ouroagent/ouro/sandbox"
)

// DefaultTTL is how long a key is used before the helper is asked again, as in Claude
// Code (CLAUDE_CODE_API_KEY_HELPER_TTL_MS unset).
const DefaultTTL = 5 * time.Minute

// TTLVar is the variable that changes DefaultTTL, in milliseconds.
const TTLVar = "CLAUDE_CODE_API_KEY_HELPER_TTL_MS"

// Timeout bounds one run of the helper (Claude Code's: ten minutes; a helper may wait for a
// person to log in to a vault).
const Timeout = 10 * time.Minute

// maxKey bounds what is read of the helper's output: a key is a line, not a file.
const maxKey = 64 << 10

// Config says which command to run and how.
type Config struct {
	Command string // the apiKeyHelper value, run by sh -c
	Source  string // the settings file that set it, for messages
	// Setting names the key in messages ("" means apiKeyHelper).
	Setting string
	// Env is added to the process environment the helper gets (the settings' env, as
	// Claude Code exports it); ouro's own credentials are taken out of both.
	Env []string
	Dir string        // where it runs ("" for ouro's working directory)
	TTL time.Duration // 0 means DefaultTTL
	// Warn gets a line when a refresh fails and the last key is kept ("" never holds the
	// key); nil discards it.
	Warn io.Writer
}

// Helper runs the command and keeps its key for TTL. It is safe for concurrent use: a
// session's providers (the main model, subagents on other models) share one.
type Helper struct {
	cfg Config
	now func() time.Time
	// AWSExport and AWSRefresh are the person's awsCredentialExport and awsAuthRefresh
	// (nil when unset), for Bedrock; set before the helper is shared. A helper may hold
	// only these (Command "").
	AWSExport, AWSRefresh *Config

	mu   sync.Mutex
	key  string
	got  time.Time
	runs int
}

// New returns a helper for cfg; nothing runs until a key is asked for.
func New(cfg Config) *Helper {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Warn == nil {
		cfg.Warn = io.Discard
	}
	return &Helper{cfg: cfg, now: time.Now}
}

// TTL reads CLAUDE_CODE_API_KEY_HELPER_TTL_MS through env: DefaultTTL when unset, and
// with a warning (what to fix) when it is no positive number of milliseconds.
func TTL(env func(string) string) (time.Duration, string) {
	v := strings.TrimSpace(env(TTLVar))
	if v == "" {
		return DefaultTTL, ""
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > int64(365*24*time.Hour/time.Millisecond) {
		return DefaultTTL, fmt.Sprintf("%s=%q is not a positive number of milliseconds; the apiKeyHelper's key is kept for the default %s", TTLVar, v, DefaultTTL)
	}
	return time.Duration(n) * time.Millisecond, ""
}

// Command is the helper's command, Source the settings file that set it.
func (h *Helper) Command() string { return h.cfg.Command }

// Source is the settings file that set the helper.
func (h *Helper) Source() string { return h.cfg.Source }

// Runs is how many times the helper has run.
func (h *Helper) Runs() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs
}

// Key returns the key: the one the helper last printed while it is younger than TTL,
// else a new one. When a refresh fails and there is a key from before, that key stays
// (as in Claude Code) with a warning; with none, the error says what failed.
func (h *Helper) Key(ctx context.Context) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.key != "" && h.now().Sub(h.got) < h.cfg.TTL {
		return h.key, nil
	}
	return h.refresh(ctx, true)
}

// Refresh runs the helper again because the API refused refused (a 401), unless another
// caller already did since that key was given out. A failure is returned even when an
// older key exists: that key was just refused.
func (h *Helper) Refresh(ctx context.Context, refused string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.key != "" && h.key != refused {
		return h.key, nil
	}
	return h.refresh(ctx, false)
}

// refresh runs the helper under h.mu.
func (h *Helper) refresh(ctx context.Context, keepOld bool) (string, error) {
	h.runs++
	key, err := h.run(ctx)
	if err != nil {
		if keepOld && h.key != "" && ctx.Err() == nil {
			fmt.Fprintf(h.cfg.Warn, "ouro: %v; the key it printed before is used\n", err)
			h.got = h.now() // ask again in a TTL, not at every request
			return h.key, nil
		}
		return "", err
	}
	h.key, h.got = key, h.now()
	return key, nil
}

// Error is a helper that failed: the setting, the command, the file that set it, and
// what happened (its exit status and the first line of its stderr, never its stdout).
type Error struct {
	Setting, Command, Source string
	Why                      string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %q (%s) %s", e.Setting, e.Command, e.Source, e.Why)
}

// Output runs cfg's command once, with cfg.Timeout's bound (Timeout when 0), and returns
// its standard output (at most 64 KiB; more is an error). stderr, when set, also gets
// what the command writes there (awsAuthRefresh shows the person a login URL). A failure
// is an *Error.
func Output(ctx context.Context, cfg Config, timeout time.Duration, stderrTo io.Writer) ([]byte, error) {
	if cfg.Setting == "" {
		cfg.Setting = "apiKeyHelper"
	}
	fail := func(format string, args ...any) error {
		return &Error{Setting: cfg.Setting, Command: cfg.Command, Source: cfg.Source, Why: fmt.Sprintf(format, args...)}
	}
	if timeout <= 0 {
		timeout = Timeout
	}
	sh, err := shell()
	if err != nil {
		return nil, fail("could not run: %v", err)
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := command(rctx, sh, cfg.Command)
	cmd.Dir = cfg.Dir
	cmd.Env = credenv.Strip(append(os.Environ(), cfg.Env...))
	cmd.Stdin = nil
	var stdout, stderr limited
	stdout.max, stderr.max = maxKey, 4<<10
	cmd.Stdout, cmd.Stderr = &stdout, io.Writer(&stderr)
	if stderrTo != nil {
		cmd.Stderr = io.MultiWriter(&stderr, stderrTo)
	}
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, fail("was stopped: %v", ctx.Err())
	case rctx.Err() != nil:
		return nil, fail("did not finish within %s and was killed", timeout)
	case errors.As(err, &exitErr):
		return nil, fail("exited with status %d%s", exitErr.ExitCode(), firstLine(stderr.String()))
	case err != nil:
		return nil, fail("could not run: %v", err)
	case stdout.over:
		return nil, fail("printed more than %d bytes", maxKey)
	}
	return stdout.buf.Bytes(), nil
}

// run starts the command once and reads the key from its stdout.
func (h *Helper) run(ctx context.Context) (string, error) {
	out, err := Output(ctx, h.cfg, Timeout, nil)
	if err != nil {
		return "", err
	}
	fail := func(format string, args ...any) error {
		return &Error{Setting: "apiKeyHelper", Command: h.cfg.Command, Source: h.cfg.Source, Why: fmt.Sprintf(format, args...)}
	}
	key := strings.TrimSpace(string(out))
	if key == "" {
		return "", fail("printed nothing (it must print the key on its standard output)")
	}
	if i := strings.IndexFunc(key, badHeaderRune); i >= 0 {
		// The value is never quoted: it may be most of a key.
		return "", fail("printed a value with a line break or control character (byte %d), which cannot be sent as a key; it must print the key alone", i+1)
	}
	return key, nil
}

// badHeaderRune is what an HTTP header value may not hold (a line break would add
// headers of the helper's choosing), and what no key holds.
func badHeaderRune(r rune) bool { return r < 0x20 || r == 0x7f }

// firstLine is ": " and the first non-blank line of a helper's stderr, bounded, or "".
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			l = strings.Map(func(r rune) rune {
				if badHeaderRune(r) {
					return ' '
				}
				return r
			}, l)
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			return ": " + l
		}
	}
	return ""
}

// command is the process for one run: under the sandbox launcher's supervision where the
// binary has it (as hooks run), else in a process group of its own that a cancellation
// kills whole.
func command(ctx context.Context, sh, script string) *exec.Cmd {
	if cmd, err := sandbox.Supervised(ctx, sh, "-c", script); err == nil {
		return cmd
	}
	cmd := exec.CommandContext(ctx, sh, "-c", script)
	ownGroup(cmd)
	return cmd
}

// limited keeps the first max bytes written and notes whether more came. (The buffer
// is not embedded: its ReadFrom would let os/exec copy past the bound.)
type limited struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room < len(p) {
		l.over = true
		if room > 0 {
			l.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return l.buf.Write(p)
}

func (l *limited) String() string { return l.buf.String() }
