package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ouroagent/ouro/internal/credenv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/tool"
)

// BashConfig configures the Bash tool. Zero values take the defaults noted per field.
type BashConfig struct {
	// Dir is the initial working directory, and the one the shell falls back to when the
	// remembered directory has been deleted. Required.
	Dir string
	// Env is extra environment (KEY=value), appended to the process environment.
	Env []string
	// DefaultTimeout applies when the call gives none; 0 means 120 s.
	DefaultTimeout time.Duration
	// MaxTimeout caps the timeout a call may ask for; 0 means 600 s.
	MaxTimeout time.Duration
	// MaxOutput is how many characters of output are shown; beyond it the middle is
	// left out. 0 means 30,000.
	MaxOutput int
	// ModelChars, when set (BASH_MAX_OUTPUT_LENGTH), is the model's view of a result in
	// place of the registry's budget (see BashLimits).
	ModelChars int
	// KillGrace is how long a timed-out or cancelled command has between SIGTERM and
	// SIGKILL; 0 means 2 s.
	KillGrace time.Duration
	// Sandbox, when set, runs every command inside the OS sandbox with this policy (see
	// package sandbox); the binary must call sandbox.MaybeRunLauncher first in main. nil
	// runs commands unsandboxed.
	Sandbox *sandbox.Policy
	// Unsandboxed, when set, reports the commands that run outside the sandbox anyway
	// (sandbox.excludedCommands): supervised, as without a sandbox.
	Unsandboxed func(command string) bool
	// AllowUnsandboxed offers the model dangerouslyDisableSandbox (with a sandbox only):
	// a call that sets it runs outside the sandbox. The gate puts such calls to a person.
	AllowUnsandboxed bool
	// Within, when set, bounds where the working directory may stay between calls: a
	// command that cd's elsewhere runs there, but the next call starts back in Dir (as
	// Claude Code resets the shell), and the result says so.
	Within func(dir string) bool
	// Background, when set, offers run_in_background: such a command runs as a task of
	// this starter (the session's *background.Manager) and the call returns at once.
	Background CommandStarter
	// EnvDir, when set, names a folder whose *.sh files the shell sources, in name
	// order, before each command: what Setup and SessionStart hooks wrote to
	// CLAUDE_ENV_FILE (hook.Runner.EnvDir). "" sources nothing.
	EnvDir func() string
}

const (
	defaultBashTimeout    = 120 * time.Second
	defaultBashMaxTimeout = 600 * time.Second
	defaultBashMaxOutput  = 30_000
	defaultBashKillGrace  = 2 * time.Second

	// orphanPipeWait is how long a finished command's background children may keep the
	// output pipe open before the call returns without them.
	orphanPipeWait = time.Second
)

// bashWrapper runs the user's command verbatim through eval, so it keeps its own quoting,
// $? and exit status, and records the final working directory from an EXIT trap, which
// also runs on `exit N` without changing the status. The command and the file arrive as
// positional parameters, never spliced into the script, and are cleared before eval so
// the command sees the same empty "$@" a plain `bash -c` would give it. A third, when not
// empty, is the env folder (BashConfig.EnvDir) whose scripts are sourced first.
//
// A shell that is PID 1 of its own PID namespace (the sandbox's namespace mode, see
// sandbox.Resident) would ignore SIGTERM, having no handler: it is trapped there to end
// the shell as the signal ends any other (status 128+15), so that a timed-out command
// stops at once rather than after the kill grace.
const bashWrapper = `__ouro_cmd=$1 __ouro_cwd_file=$2 __ouro_env=$3; set --; ` +
	`if [ "$$" = 1 ]; then trap 'exit 143' TERM; fi; ` +
	wrapperSourceEnv +
	`trap 'pwd -P >"$__ouro_cwd_file" 2>/dev/null' EXIT; ` +
	`eval "$__ouro_cmd"`

// wrapperSourceEnv sources the env folder's scripts, in name order (see bashWrapper).
const wrapperSourceEnv = `if [ -n "$__ouro_env" ]; then for __ouro_f in "$__ouro_env"/*.sh; do ` +
	`if [ -f "$__ouro_f" ]; then . "$__ouro_f"; fi; done; fi; unset __ouro_f __ouro_env; `

// Bash runs shell commands in a working directory that persists between calls.
type Bash struct {
	cfg   BashConfig
	shell string
	// shellErr, when set, is why there is no shell to run commands in (Windows without
	// Git Bash): every call fails with it.
	shellErr error
	spec     llm.ToolSpec

	mu  sync.Mutex
	cwd string
	// sb is the sandbox commands run in from now on (cfg.Sandbox until MoveTo).
	sb *sandbox.Policy
}

// NewBash returns the Bash tool. It uses bash when it is on PATH and sh otherwise; on
// Windows, Git Bash (see gitbash.Find), and when there is none every call says how to
// get it. It panics when cfg.Dir is empty, which is a programming error.
func NewBash(cfg BashConfig) *Bash {
	shell, err := defaultShell()
	b := newBashWithShell(cfg, shell)
	b.shellErr = err
	b.spec.Description += platformNote(shell, err)
	return b
}

func newBashWithShell(cfg BashConfig, shell string) *Bash {
	if cfg.Dir == "" {
		panic("tools: BashConfig.Dir is required")
	}
	if abs, err := filepath.Abs(cfg.Dir); err == nil {
		cfg.Dir = abs
	}
	if cfg.DefaultTimeout <= 0 {
		cfg.DefaultTimeout = defaultBashTimeout
	}
	if cfg.MaxTimeout <= 0 {
		cfg.MaxTimeout = defaultBashMaxTimeout
	}
	cfg.DefaultTimeout = min(cfg.DefaultTimeout, cfg.MaxTimeout)
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = defaultBashMaxOutput
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = defaultBashKillGrace
	}
	cfg.Env = append([]string(nil), cfg.Env...)
	b := &Bash{cfg: cfg, shell: shell, cwd: cfg.Dir, sb: cfg.Sandbox}
	b.spec = llm.ToolSpec{Name: "Bash", Description: bashDescription(cfg), InputSchema: bashSchema(cfg)}
	return b
}

// MoveTo makes dir the directory commands start in and fall back to (a session entering
// or leaving a git worktree), and sb, when the tool has a sandbox, the sandbox of the
// commands from now on (one whose write roots are the new workspace's). A nil sb keeps
// the sandbox; a tool without one stays without.
func (b *Bash) MoveTo(dir string, sb *sandbox.Policy) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cfg.Dir, b.cwd = dir, dir
	if b.sb != nil && sb != nil {
		b.sb = sb
	}
}

func (b *Bash) sandboxPolicy() *sandbox.Policy {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb
}

// Placement returns the directory commands start from (Dir, or where MoveTo moved the
// tool) and the sandbox they run in, for running other commands where this tool's run.
func (b *Bash) Placement() (dir string, sb *sandbox.Policy) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cfg.Dir, b.sb
}

// Cwd returns the directory the next command will start in.
func (b *Bash) Cwd() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cwd
}

// Spec implements tool.Tool.
func (b *Bash) Spec() llm.ToolSpec { return b.spec }

// ReadOnly implements tool.Tool: a shell command can do anything.
func (b *Bash) ReadOnly() bool { return false }

// Describe implements tool.Describer: a call runs its command line, which the policy
// judges command by command.
func (b *Bash) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeCommand(input)
}

func bashDescription(cfg BashConfig) string {
	bg := " Start it and use it within one command."
	if cfg.Background != nil {
		bg = " For a server or long job, set run_in_background: you are notified when it ends."
	}
	return fmt.Sprintf(`Runs a shell command with bash -c; returns its stdout and stderr, interleaved.
- The working directory persists between calls (a cd carries over); shell variables and functions do not.
- timeout is in milliseconds: default %d (%s), max %d (%s). On timeout the command and all it started are killed; the output so far is returned.
- Every process a command starts ends with it, even with &, nohup or setsid.%s
- Output over %d characters keeps only its start and end: redirect long output to a file and search it.
- No stdin: use non-interactive flags (git commit -m, apt-get -y, no pagers or editors).
- A non-zero exit is reported as "Exit code N", an error.
- Use Read, Write, Edit, Glob, Grep and LS, not cat, sed, echo >, find, grep or ls.`,
		cfg.DefaultTimeout.Milliseconds(), seconds(cfg.DefaultTimeout),
		cfg.MaxTimeout.Milliseconds(), seconds(cfg.MaxTimeout), bg, cmp.Or(cfg.ModelChars, cfg.MaxOutput))
}

func bashSchema(cfg BashConfig) json.RawMessage {
	unsandboxed := ""
	if cfg.AllowUnsandboxed && cfg.Sandbox != nil {
		unsandboxed = `,
    "dangerouslyDisableSandbox": {"type": "boolean", "description": "Run outside the sandbox, only after it blocked something the task needs; the user is asked"}`
	}
	bg := ""
	if cfg.Background != nil {
		bg = `,
    "run_in_background": {"type": "boolean", "description": "Do not wait: get a task id and output file"}`
	}
	return json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The command to execute"},
    "timeout": {"type": "number", "description": "Optional timeout in milliseconds (max %d)"},
    "description": {"type": "string", "description": "What the command does, in 5-10 words"}%s
  },
  "required": ["command"],
  "additionalProperties": false
}`, cfg.MaxTimeout.Milliseconds(), unsandboxed+bg))
}

// policyFor is the sandbox a call runs in: none for a command the settings exclude or a
// call that asked to leave it (which the gate put to the user).
func (b *Bash) policyFor(in bashInput) *sandbox.Policy {
	pol := b.sandboxPolicy()
	if pol != nil && (in.DangerouslyDisableSandbox || b.cfg.Unsandboxed != nil && b.cfg.Unsandboxed(in.Command)) {
		pol = nil
	}
	return pol
}

// offersUnsandboxed reports whether calls may set dangerouslyDisableSandbox.
func (b *Bash) offersUnsandboxed() bool { return b.cfg.AllowUnsandboxed && b.cfg.Sandbox != nil }

type bashInput struct {
	Command                   string   `json:"command"`
	Timeout                   *float64 `json:"timeout"`
	Description               string   `json:"description"`
	DangerouslyDisableSandbox bool     `json:"dangerouslyDisableSandbox"`
	Background                bool     `json:"run_in_background"`
}

func (b *Bash) parseInput(raw json.RawMessage) (bashInput, time.Duration, error) {
	var in bashInput
	if err := decodeInput("Bash", raw, &in); err != nil {
		return in, 0, err
	}
	if strings.TrimSpace(in.Command) == "" {
		return in, 0, errors.New("invalid Bash input: command is required and must not be empty")
	}
	if in.DangerouslyDisableSandbox && !b.offersUnsandboxed() {
		return in, 0, errors.New("invalid Bash input: dangerouslyDisableSandbox is not available here (no sandbox, or sandbox.allowUnsandboxedCommands is false); run the command without it")
	}
	if in.Background && b.cfg.Background == nil {
		return in, 0, fmt.Errorf("invalid Bash input: run_in_background is not available in this session; run the command in the foreground (it may take up to %d ms)", b.cfg.MaxTimeout.Milliseconds())
	}
	timeout := b.cfg.DefaultTimeout
	if in.Timeout != nil {
		ms := *in.Timeout
		if ms <= 0 {
			return in, 0, fmt.Errorf("invalid Bash input: timeout must be a positive number of milliseconds, got %v", ms)
		}
		// Compare in milliseconds first: a huge value would overflow a Duration.
		if ms >= float64(b.cfg.MaxTimeout.Milliseconds()) {
			timeout = b.cfg.MaxTimeout
		} else {
			timeout = time.Duration(ms * float64(time.Millisecond))
		}
	}
	return in, timeout, nil
}

// Run implements tool.Tool.
func (b *Bash) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	in, timeout, err := b.parseInput(input)
	if err != nil {
		return tool.Result{}, err
	}
	if b.shellErr != nil {
		return tool.Result{}, fmt.Errorf("bash: %w", b.shellErr)
	}
	if in.Background {
		return b.runBackground(ctx, x, in)
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, fmt.Errorf("bash: not started: %w", err)
	}
	dir, note, err := b.startDir()
	if err != nil {
		return tool.Result{}, err
	}

	tmpDir := ""
	if sb := b.sandboxPolicy(); sb != nil {
		tmpDir = sb.TempDir // the sandboxed shell writes the file: keep it in a write root
	}
	cwdFile, err := os.CreateTemp(tmpDir, "ouro-bash-cwd-*")
	if err != nil {
		return tool.Result{}, fmt.Errorf("bash: create cwd file: %w", err)
	}
	cwdPath := cwdFile.Name()
	defer os.Remove(cwdPath)
	if err := cwdFile.Close(); err != nil {
		return tool.Result{}, fmt.Errorf("bash: close cwd file %s: %w", cwdPath, err)
	}

	out := newOutputBuffer(b.cfg.MaxOutput)
	pol := b.policyFor(in)
	var netMark uint64
	if pol != nil {
		netMark = pol.ProxyMark()
	}
	cmd, supervised, err := b.shellCommand(ctx, pol, in.Command, cwdPath)
	if err != nil {
		return tool.Result{}, err
	}
	cmd.Dir = dir
	// One writer for both streams: os/exec then gives the child a single pipe, so the
	// order of stdout and stderr lines is the order they were written in.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Stdin = nil // /dev/null
	ownGroup(cmd)
	cmd.WaitDelay = orphanPipeWait
	var absent []string
	var indexes *sandbox.IndexGuard
	var protect *sandbox.ProtectGuard
	if pol != nil {
		// A placeholder holds each missing .git while the command runs (before Absent,
		// which would otherwise take it for something the command made).
		placeholders := pol.HoldPlaceholders()
		defer placeholders.Release()
		absent = pol.Absent()
		indexes = pol.GuardIndexes()
		protect = pol.GuardProtected() // Landlock-only mode: check-and-restore
	}
	tree, err := startTree(cmd)
	if err != nil {
		protect.Restore() // nothing ran: only lets go of what it holds
		return tool.Result{}, fmt.Errorf("bash: start %s in %s: %w", b.shell, dir, err)
	}
	// Known once started: where ouro supervises the command itself, no launcher stays.
	supervised = supervised && sandbox.Resident(cmd)

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()

	var waitErr error
	timedOut := false
	select {
	case waitErr = <-done:
	case <-timer.C:
		timedOut = true
		tree.terminate(supervised, b.cfg.KillGrace)
		waitErr = <-done
	case <-ctx.Done():
		tree.terminate(supervised, b.cfg.KillGrace)
		<-done
		sandbox.End(cmd)
		b.recordCwd(cwdPath)
		if len(absent) > 0 {
			sandbox.Reclaim(absent, pol.TempDir)
		}
		indexes.Restore()
		protect.Restore()
		if pol != nil {
			pol.MigrateObjects()
		}
		return tool.Result{}, fmt.Errorf("bash: command stopped: %w", ctx.Err())
	}
	// Whatever the command left running is killed before anything is judged or put back.
	sandbox.End(cmd)
	b.recordCwd(cwdPath)
	reclaimed := ""
	if len(absent) > 0 {
		reclaimed = sandbox.Reclaim(absent, pol.TempDir)
	}
	if restored := indexes.Restore(); restored != "" {
		reclaimed = strings.TrimSpace(reclaimed + " " + restored)
	}
	if restored := protect.Restore(); restored != "" {
		reclaimed = strings.TrimSpace(reclaimed + "\n" + restored)
	}
	if pol != nil {
		// Objects a command in a worktree wrote, into the shared store (see
		// sandbox.WorktreeObjects).
		if moved := pol.MigrateObjects(); moved != "" {
			reclaimed = strings.TrimSpace(reclaimed + "\n" + moved)
		}
	}

	var parts []string
	if note != "" {
		parts = append(parts, note)
	}
	text, omitted := out.render()
	text = strings.TrimRight(text, "\n")
	if text == "" {
		text = "(no output)"
	}
	parts = append(parts, text)
	if reset := b.keepWithin(); reset != "" {
		parts = append(parts, reset)
	}

	var exitErr *exec.ExitError
	switch {
	case waitErr == nil, errors.As(waitErr, &exitErr):
	case errors.Is(waitErr, exec.ErrWaitDelay):
		parts = append(parts, "(Background processes the command started still hold its output; what they print from now on is not captured.)")
	default:
		return tool.Result{}, fmt.Errorf("bash: wait for %q: %w", textcut.Runes(in.Command, 200, "…"), waitErr)
	}

	isError := false
	status, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case timedOut:
		isError = true
		parts = append(parts, fmt.Sprintf("Command timed out after %s; it and every process it started were terminated. The output above is what it printed until then. If it needs longer, pass a larger timeout (at most %d ms).",
			seconds(timeout), b.cfg.MaxTimeout.Milliseconds()))
	case status.Signaled():
		isError = true
		parts = append(parts, fmt.Sprintf("Killed by signal %d (%s)", int(status.Signal()), status.Signal()))
	case cmd.ProcessState.ExitCode() != 0:
		isError = true
		parts = append(parts, fmt.Sprintf("Exit code %d", cmd.ProcessState.ExitCode()))
	}
	var notes []string
	if pol != nil {
		// What the proxy refused is reported whatever the exit status: curl without -f,
		// or a script that goes on, succeeds although its download did not.
		if note := pol.ProxyNote(netMark); note != "" {
			notes = append(notes, note)
		}
	}
	if pol != nil && isError {
		if note := sandbox.Diagnose(*pol, text, dir, b.Cwd()); note != "" {
			notes = append(notes, note)
		}
	}
	if len(notes) > 0 && b.offersUnsandboxed() {
		notes = append(notes, "If the task really needs what was blocked, the command can be retried with dangerouslyDisableSandbox: true; the user is asked first.")
	}
	parts = append(parts, notes...)
	if reclaimed != "" {
		parts = append(parts, reclaimed)
	}
	res := tool.Text(strings.Join(parts, "\n"))
	res.IsError, res.Omitted = isError, omitted
	return res, nil
}

// shellCommand returns the process for one call, with SysProcAttr and Env set: the
// launcher (supervised), which enters the sandbox if there is one and runs the shell, or
// where the binary has no launcher and there is no sandbox, the shell itself.
func (b *Bash) shellCommand(ctx context.Context, sb *sandbox.Policy, command, cwdPath string) (*exec.Cmd, bool, error) {
	cmd, supervised, callEnv, err := b.shellProcess(ctx, sb, command, cwdPath)
	if err != nil {
		return nil, false, err
	}
	// ouro's own credentials never reach the command (nor the model, through it).
	cmd.Env = append(credenv.Strip(append(os.Environ(), b.cfg.Env...)), callEnv...)
	return cmd, supervised, nil
}

func (b *Bash) shellProcess(ctx context.Context, sb *sandbox.Policy, command, cwdPath string) (cmd *exec.Cmd, supervised bool, callEnv []string, err error) {
	envDir := ""
	if b.cfg.EnvDir != nil {
		envDir = b.cfg.EnvDir()
	}
	args, callEnv := wrapperCall(b.shell, command, cwdPath, envDir)
	if sb == nil {
		// Under the launcher when the binary has one, so that nothing the command starts
		// outlives it or ouro; else the shell alone, which at least dies with ouro.
		if cmd, err := sandbox.Supervised(context.WithoutCancel(ctx), b.shell, args...); err == nil {
			return cmd, true, callEnv, nil
		}
		cmd = exec.Command(b.shell, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		dieWithOuro(cmd.SysProcAttr)
		return cmd, false, callEnv, nil
	}
	pol := *sb
	if pol.TempDir == "" {
		// The cwd file is in the system temp dir: let the shell write that one file.
		pol.WriteRoots = append(slices.Clone(pol.WriteRoots), cwdPath)
	}
	// Without cancellation: Run terminates the whole group itself, with a grace period.
	cmd, err = sandbox.Command(context.WithoutCancel(ctx), pol, b.shell, args...)
	if err != nil {
		return nil, false, nil, fmt.Errorf("bash: %w", err)
	}
	// A shell the launcher became (PID 1 of its own PID namespace) takes its whole
	// namespace with it when killed; only a resident launcher understands SIGHUP.
	return cmd, sandbox.Resident(cmd), callEnv, nil
}

// startDir returns the directory to run in: the remembered one, or Dir with a note for
// the model when the remembered one has disappeared.
func (b *Bash) startDir() (dir, note string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if isDir(b.cwd) {
		return b.cwd, "", nil
	}
	if !isDir(b.cfg.Dir) {
		return "", "", fmt.Errorf("bash: working directory %s and initial directory %s no longer exist", b.cwd, b.cfg.Dir)
	}
	note = fmt.Sprintf("Note: the working directory %s no longer exists; this command ran in %s instead.", b.cwd, b.cfg.Dir)
	b.cwd = b.cfg.Dir
	return b.cwd, note, nil
}

// keepWithin moves the remembered directory back to Dir when a command left the allowed
// directories, and says so.
func (b *Bash) keepWithin() string {
	if b.cfg.Within == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cwd == b.cfg.Dir || b.cfg.Within(b.cwd) {
		return ""
	}
	left := b.cwd
	b.cwd = b.cfg.Dir
	return fmt.Sprintf("Shell cwd was reset to %s (the command left the allowed directories for %s).", b.cfg.Dir, left)
}

// recordCwd remembers the directory the shell's EXIT trap wrote. An empty or unusable
// file (the shell was killed, or the command replaced the trap) keeps the old value. The
// command can reach the file, so it is read only if still a regular file, and only as
// much as a path can hold: a pipe or /dev/zero put in its place cannot hang ouro.
func (b *Bash) recordCwd(path string) {
	data, more, err := regfile.ReadHead(path, 64<<10)
	if err != nil || more {
		return
	}
	dir := nativePath(strings.TrimSuffix(string(data), "\n"))
	if !filepath.IsAbs(dir) || !isDir(dir) {
		return
	}
	b.mu.Lock()
	b.cwd = dir
	b.mu.Unlock()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// seconds renders d as the model reads it: "120s", "0.5s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
