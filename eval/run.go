package eval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ouroagent/ouro/internal/credenv"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/resolve"
	"github.com/ouroagent/ouro/scout"
	"github.com/ouroagent/ouro/scout/runner"
	"github.com/ouroagent/ouro/tool"
)

// Options configure an evaluation.
type Options struct {
	// Tasks are the tasks to run (LoadTasks); TaskSet names where they came from.
	Tasks   []Task
	TaskSet string
	// Model is what to evaluate: "scripted" plays each task's trajectory called Script
	// (default "reference"); anything else is a model as --model takes it (claude-…,
	// openai:…), measuring the model together with the harness.
	Model  string
	Script string
	Runs   int // per task (default 1)
	// Parallel is how many runs go at once (default: the CPUs, at most 4).
	Parallel int
	// Out keeps everything: trajectories/ (one JSONL transcript per run) and the
	// harness's state (home/). Required.
	Out string
	// Keep leaves each run's working copy under Out/work instead of removing it.
	Keep bool
	// TestTimeout bounds the external test run of a fix (default 5 min).
	TestTimeout time.Duration
	// Progress, when set, receives one line per finished run.
	Progress        io.Writer
	SandboxLauncher bool
	Version         string
}

// Scripted is the Model value that plays each task's own trajectories.
const Scripted = "scripted"

// Run runs every task Runs times, each in a fresh copy of its repository, checks each
// final state from outside and returns the report.
func Run(ctx context.Context, o Options) (Report, error) {
	if err := Prepare(&o); err != nil {
		return Report{}, err
	}
	started := time.Now()
	// Runs are independent (each has its own copy, session and model), so they run side
	// by side; results keep the task order.
	results := make([][]RunResult, len(o.Tasks))
	for i := range results {
		results[i] = make([]RunResult, o.Runs)
	}
	type job struct{ ti, n int }
	jobs := make(chan job)
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	for range o.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := RunJob(ctx, o, o.Tasks[j.ti], j.n)
				results[j.ti][j.n-1] = r
				if o.Progress != nil {
					progressMu.Lock()
					fmt.Fprintln(o.Progress, ProgressLine(r))
					progressMu.Unlock()
				}
			}
		}()
	}
feed:
	for ti := range o.Tasks {
		for n := 1; n <= o.Runs; n++ {
			select {
			case jobs <- job{ti, n}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Report{Model: o.Model, TaskSet: o.TaskSet, Started: started, Version: o.Version}, err
	}
	return Assemble(o, started, results), nil
}

// Prepare checks and completes o (defaults, an absolute Out, a model that can be
// reached) and makes Out's folders: what Run does before its first run, and what a
// worker of a distributed evaluation does before running jobs with o.
func Prepare(o *Options) error {
	if o.Out == "" {
		return errors.New("eval: an output folder is required")
	}
	// Work copies must have absolute paths: a model's absolute path is compared with them.
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	o.Out = out
	if o.Runs <= 0 {
		o.Runs = 1
	}
	if o.Parallel <= 0 {
		o.Parallel = min(runtime.NumCPU(), 4)
	}
	if o.Script == "" {
		o.Script = "reference"
	}
	if o.TestTimeout <= 0 {
		o.TestTimeout = 5 * time.Minute
	}
	if o.Model == "" {
		return errors.New("eval: a model is required (--model scripted plays the tasks' own trajectories)")
	}
	if o.Model != Scripted {
		// A model that cannot be reached (no key) would fail every run the same way:
		// say so once, before anything runs.
		if _, _, err := resolve.NewProvider(resolve.Name(o.Model, "", os.Getenv), ""); err != nil {
			return fmt.Errorf("eval: model %s: %w", o.Model, err)
		}
	}
	for _, d := range []string{"trajectories", "home", "user-config", "work"} {
		if err := os.MkdirAll(filepath.Join(o.Out, d), 0o755); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}
	return nil
}

// RunJob is run n of task t with o (as Prepare left it): skipped when python3 or the
// scripted trajectory is missing, else run and checked.
func RunJob(ctx context.Context, o Options, t Task, n int) RunResult {
	_, pyErr := exec.LookPath("python3")
	switch {
	case t.Language == "python" && pyErr != nil:
		return RunResult{Task: t.Name, Kind: t.Kind, Run: n, Skipped: "python3 is not installed"}
	case o.Model == Scripted && !exists(t.ScriptPath(o.Script)):
		return RunResult{Task: t.Name, Kind: t.Kind, Run: n, Skipped: fmt.Sprintf("no %q trajectory", o.Script)}
	}
	return runOne(ctx, o, t, n)
}

// Assemble makes the report of an evaluation from its results, results[i][n-1] being
// run n of o.Tasks[i].
func Assemble(o Options, started time.Time, results [][]RunResult) Report {
	rep := Report{Model: o.Model, TaskSet: o.TaskSet, Started: started, Version: o.Version}
	if o.Model == Scripted {
		rep.Script = o.Script
	}
	for ti, t := range o.Tasks {
		tr := TaskReport{Task: t.Name, Kind: t.Kind, Runs: results[ti]}
		tr.Metrics = Summarize(tr.Runs)
		if tr.Metrics.Runs == 0 && len(tr.Runs) > 0 {
			tr.Skipped = tr.Runs[0].Skipped
		}
		rep.Tasks = append(rep.Tasks, tr)
	}
	var all []RunResult
	for _, tr := range rep.Tasks {
		all = append(all, tr.Runs...)
	}
	rep.Overall = Summarize(all)
	rep.Duration = time.Since(started)
	return rep
}

// ProgressLine is the line printed as a run finishes.
func ProgressLine(r RunResult) string { return progressLine(r) }

func progressLine(r RunResult) string {
	if r.Skipped != "" {
		return fmt.Sprintf("  %-28s run %d  skipped: %s", r.Task, r.Run, r.Skipped)
	}
	verdict := "ok"
	if !r.Success {
		verdict = "FAIL"
		if len(r.Failures) > 0 {
			verdict += ": " + firstLine(r.Failures[0])
		}
	}
	return fmt.Sprintf("  %-28s run %d  %-4s turns %d  calls %d  invalid %d  out-of-bounds %d  %s", r.Task, r.Run,
		r.Status, r.Turns, r.ToolCalls, r.InvalidCalls, r.OutOfBounds, verdict)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// runOne is one run of one task: copy, run the agent, check from outside.
func runOne(ctx context.Context, o Options, t Task, n int) RunResult {
	r := RunResult{Task: t.Name, Kind: t.Kind, Run: n}
	fail := func(format string, a ...any) RunResult {
		r.Status = string(agent.StatusFailed)
		r.Failures = append(r.Failures, fmt.Sprintf(format, a...))
		return r
	}
	work := filepath.Join(o.Out, "work", fmt.Sprintf("%s-run%d", t.Name, n))
	os.RemoveAll(work)
	if err := os.CopyFS(work, os.DirFS(t.RepoDir())); err != nil {
		return fail("copy the repository: %v", err)
	}
	if !o.Keep {
		defer os.RemoveAll(work)
	}
	before, err := snapshot(work)
	if err != nil {
		return fail("snapshot: %v", err)
	}
	model := o.Model
	if model == Scripted {
		model = "scripted:" + t.ScriptPath(o.Script)
	}
	var deny []string
	for _, s := range t.SecretFiles {
		deny = append(deny, "Read(./"+strings.TrimPrefix(s, "./")+")")
	}
	rec := &recorder{}
	// Runs are isolated from the person running them: a fresh ouro home, and an empty
	// folder for user-level configuration (~/.claude settings, hooks, CLAUDE.md, skills,
	// agents), so results compare across machines. Only the task's repository speaks.
	cfg := scout.Config{Dir: work, Prompt: t.Prompt, Model: model, Home: filepath.Join(o.Out, "home"),
		UserConfigHome: filepath.Join(o.Out, "user-config"),
		MaxTurns:       t.MaxTurns, Deny: deny, Observers: []agent.Observer{rec.observe},
		SandboxLauncher: o.SandboxLauncher, Version: o.Version, Warn: io.Discard}
	if t.Kind == KindFix {
		cfg.Fix = &scout.FixConfig{Test: t.Test, Allowed: t.AllowedChanges}
	}
	res, err := runner.Run(ctx, cfg)
	if err != nil {
		return fail("the run could not start: %v", err)
	}
	out := res.Outcome
	r.Status, r.Reason = string(out.Status), out.Reason
	r.Turns, r.Duration, r.CostUSD = out.Turns, out.Duration, out.CostUSD
	r.ContextTokens = out.Usage.InputTokens + out.Usage.CacheReadInputTokens + out.Usage.CacheCreationInputTokens
	r.OutputTokens = out.Usage.OutputTokens
	r.Claimed = out.Status == agent.StatusCompleted
	rec.classify(&r, out.Denials, work)
	r.ToolDefinitionTokens = res.ToolDefinitionBytes / 4 * out.Turns
	r.ToolResultTokens = rec.resultTokens()
	if res.Transcript != "" {
		dst := filepath.Join(o.Out, "trajectories", fmt.Sprintf("%s-run%d.jsonl", t.Name, n))
		if err := copyFile(res.Transcript, dst); err == nil {
			r.Transcript = dst
		}
	}

	// The external check: the state on disk and the answer, never the model's word.
	r.Failures = append(r.Failures, checkChanges(t, before, work)...)
	r.Failures = append(r.Failures, rec.leaks(t, work)...)
	switch t.Kind {
	case KindScout:
		for _, e := range t.Expect {
			if !regexp.MustCompile("(?i)" + e.Pattern).MatchString(res.Report) {
				r.Failures = append(r.Failures, fmt.Sprintf("the answer fails the check %q (/%s/ does not match)", e.What, e.Pattern))
			}
		}
		if res.Status == scout.StatusUnverified {
			r.Failures = append(r.Failures, "the answer cites what the run never read: "+res.Reason)
		}
	case KindFix:
		if msg := runTest(ctx, work, t.Test, o.TestTimeout); msg != "" {
			r.Failures = append(r.Failures, msg)
		}
	}
	if t.Check != "" {
		if msg := RunCheck(ctx, t, work, res.Report, o.TestTimeout); msg != "" {
			r.Failures = append(r.Failures, msg)
		}
	}
	if out.Status != agent.StatusCompleted && len(r.Failures) == 0 {
		r.Failures = append(r.Failures, fmt.Sprintf("the run ended %s: %s", out.Status, out.Reason))
	}
	r.Success = len(r.Failures) == 0
	r.FalseCompletion = r.Claimed && !r.Success
	return r
}

// recorder collects each call and its result as the run goes.
type recorder struct {
	mu    sync.Mutex
	calls []callRecord
	turns int // model calls so far
}

type callRecord struct {
	call    tool.Call
	text    string
	isError bool
	turn    int // the model call that asked for it
}

func (c *recorder) observe(e agent.Event) {
	if e.Type == agent.EventTurnStart {
		c.mu.Lock()
		c.turns = e.Turn
		c.mu.Unlock()
		return
	}
	if e.Type != agent.EventToolEnd || e.Call == nil || e.Result == nil {
		return
	}
	var sb strings.Builder
	for _, b := range e.Result.Content {
		if b.Type == llm.BlockText {
			sb.WriteString(b.Text)
		}
	}
	c.mu.Lock()
	c.calls = append(c.calls, callRecord{call: *e.Call, text: sb.String(), isError: e.Result.IsError, turn: e.Turn})
	c.mu.Unlock()
}

// resultTokens estimates what the tool results cost the context: each result is sent
// again with every request after its own (four bytes a token).
func (c *recorder) resultTokens() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, cr := range c.calls {
		total += len(cr.text) / 4 * max(1, c.turns-cr.turn)
	}
	return total
}

// classify counts the calls, the invalid ones (no new information) and the
// out-of-bounds ones (denied, or naming a path outside the working copy).
func (c *recorder) classify(r *RunResult, denials []agent.Denial, work string) {
	denied := map[string]string{}
	for _, d := range denials {
		denied[d.ToolUseID] = d.Reason
	}
	failedBefore := map[string]string{}
	for _, cr := range c.calls {
		r.ToolCalls++
		desc := fmt.Sprintf("%s %s", cr.call.Name, textcut.Bytes(compactJSON(cr.call.Input), 120, "…"))
		if reason, ok := denied[cr.call.ID]; ok {
			r.OutOfBounds++
			r.OutOfBound = append(r.OutOfBound, fmt.Sprintf("%s: denied: %s", desc, textcut.Bytes(reason, 200, "…")))
			continue
		}
		if p := outsidePath(cr.call.Input, work); p != "" {
			r.OutOfBounds++
			r.OutOfBound = append(r.OutOfBound, fmt.Sprintf("%s: %s is outside the workspace", desc, p))
			continue
		}
		key := cr.call.Name + "\x00" + string(cr.call.Input)
		switch kind := tool.FailureKind(cr.text); {
		case kind != "":
			r.InvalidCalls++
			r.Invalid = append(r.Invalid, fmt.Sprintf("%s: %s", desc, kind))
		case cr.isError && repeatsFailure(failedBefore, key, cr.text):
			r.InvalidCalls++
			r.Invalid = append(r.Invalid, fmt.Sprintf("%s: failed again exactly as before", desc))
		}
		if cr.isError {
			failedBefore[key] = cr.text
		}
	}
}

func repeatsFailure(failed map[string]string, key, text string) bool {
	prev, ok := failed[key]
	return ok && prev == text
}

// outsidePath returns a path argument of the call that leaves work, or "".
func outsidePath(input json.RawMessage, work string) string {
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	for _, f := range []string{"file_path", "path", "notebook_path"} {
		p, ok := in[f].(string)
		if !ok || p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(work, p)
		}
		if abs, err := filepath.Abs(work); err == nil {
			work = abs
		}
		if rel, err := filepath.Rel(work, filepath.Clean(p)); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return in[f].(string)
		}
	}
	return ""
}

// leaks fails the run when the content of a secret file (each secret_files entry is a
// glob) appeared in any tool result.
func (c *recorder) leaks(t Task, work string) []string {
	var out []string
	for _, pattern := range t.SecretFiles {
		matches, err := doublestar.Glob(os.DirFS(t.RepoDir()), strings.TrimPrefix(pattern, "./"), doublestar.WithFilesOnly())
		if err != nil {
			continue
		}
		for _, m := range matches {
			if c.leaked(filepath.Join(t.RepoDir(), filepath.FromSlash(m))) {
				out = append(out, fmt.Sprintf("the secret file %s was read: its content appeared in a tool result", m))
			}
		}
	}
	return out
}

// leaked reports whether a line of the file (long enough to be distinctive) appeared in
// any tool result.
func (c *recorder) leaked(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if len(line) < 8 {
			continue
		}
		if slices.ContainsFunc(c.calls, func(cr callRecord) bool { return strings.Contains(cr.text, line) }) {
			return true
		}
	}
	return false
}

// checkChanges compares the working copy with its snapshot: a scout task may change
// nothing, a fix only its allowed files.
func checkChanges(t Task, before map[string]string, work string) []string {
	after, err := snapshot(work)
	if err != nil {
		return []string{fmt.Sprintf("snapshot after the run: %v", err)}
	}
	var changed []string
	for p, h := range after {
		if before[p] != h {
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	var out []string
	for _, p := range changed {
		if t.Kind == KindFix && scout.MatchAny(t.AllowedChanges, p) {
			continue
		}
		out = append(out, fmt.Sprintf("%s changed, and the task does not allow it", p))
	}
	if t.Kind == KindFix && len(changed) == 0 {
		out = append(out, "nothing was changed")
	}
	return out
}

// runTest runs the task's test command in the working copy; "" means it passed.
func runTest(ctx context.Context, dir, command string, timeout time.Duration) string {
	out, err := runIn(ctx, dir, timeout, "", "sh", "-c", command)
	if err == nil {
		return ""
	}
	return fmt.Sprintf("the test command %q fails after the run (%v):\n%s", command, err, textcut.LastLines(out, 12))
}

// RunCheck runs the task's check script in the working copy work with answer (the run's
// final text) on its stdin; "" means the outcome holds. The answer is data: it reaches
// the script only as input, never as program text.
func RunCheck(ctx context.Context, t Task, work, answer string, timeout time.Duration) string {
	script, err := filepath.Abs(t.CheckPath())
	if err != nil {
		return fmt.Sprintf("the check %s: %v", t.Check, err)
	}
	out, err := runIn(ctx, work, timeout, answer, "sh", script)
	if err == nil {
		return ""
	}
	return fmt.Sprintf("the check %s fails after the run (%v):\n%s", t.Check, err, textcut.LastLines(out, 12))
}

// runIn runs a checking command in dir without the caller's credentials and without
// Python writing bytecode into the working copy.
func runIn(ctx context.Context, dir string, timeout time.Duration, stdin string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(credenv.Strip(os.Environ()), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// snapshot hashes every file under dir (relative slash paths), ignoring caches the test
// commands write.
func snapshot(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "__pycache__" || d.Name() == ".pytest_cache" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = fmt.Sprintf("%x", sha256.Sum256(data))
		return nil
	})
	return out, err
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// compactJSON puts a call's input on one line for the report.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return strings.Join(strings.Fields(string(raw)), " ")
	}
	return b.String()
}
