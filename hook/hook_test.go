package hook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

// env is one test's project: a temp dir holding the hook scripts, and what the runner
// reported.
type env struct {
	t    *testing.T
	dir  string
	n    int
	mu   sync.Mutex
	runs []hook.Run
	user []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("command hooks run through a POSIX shell")
	}
	return &env{t: t, dir: t.TempDir()}
}

// script writes a small shell script into the project and returns the command that
// runs it, through $CLAUDE_PROJECT_DIR as settings files usually spell it.
func (e *env) script(body string) string {
	e.t.Helper()
	e.n++
	name := fmt.Sprintf("hook%d.sh", e.n)
	if err := os.WriteFile(filepath.Join(e.dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return `"$CLAUDE_PROJECT_DIR"/` + name
}

// path is a file in the project dir.
func (e *env) path(name string) string { return filepath.Join(e.dir, name) }

func (e *env) read(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *env) runner(hooks map[string][]settings.HookMatcher, mod ...func(*hook.Config)) *hook.Runner {
	e.t.Helper()
	cfg := hook.Config{
		Hooks:      hooks,
		ProjectDir: e.dir,
		SessionID:  "sess-1",
		Observer: func(r hook.Run) {
			e.mu.Lock()
			e.runs = append(e.runs, r)
			e.mu.Unlock()
		},
		ShowUser: func(s string) {
			e.mu.Lock()
			e.user = append(e.user, s)
			e.mu.Unlock()
		},
	}
	for _, m := range mod {
		m(&cfg)
	}
	r, err := hook.New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) reported() []hook.Run {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]hook.Run(nil), e.runs...)
}

func (e *env) shown() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.user, "\n")
}

// on is one event's configuration with a single matcher group.
func on(event, matcher string, cmds ...string) map[string][]settings.HookMatcher {
	return map[string][]settings.HookMatcher{event: {group(matcher, cmds...)}}
}

func group(matcher string, cmds ...string) settings.HookMatcher {
	m := settings.HookMatcher{Matcher: matcher, Source: "/proj/.ouro/settings.json"}
	for _, c := range cmds {
		m.Hooks = append(m.Hooks, settings.HookCommand{Type: "command", Command: c, Timeout: 30})
	}
	return m
}

func bash(id, command string) tool.Call {
	in, _ := json.Marshal(map[string]string{"command": command})
	return tool.Call{ID: id, Name: "Bash", Input: in}
}

func lines(s string) int { return strings.Count(s, "\n") }

// Events and hook types ouro does not know (Claude Code keeps adding them) are skipped
// with a warning naming the file: a setup written for a newer Claude Code still starts.
func TestUnknownEventsAndTypesWarn(t *testing.T) {
	r, err := hook.New(hook.Config{ProjectDir: t.TempDir(), Hooks: map[string][]settings.HookMatcher{
		"MessageDisplay": {{Hooks: []settings.HookCommand{{Type: "command", Command: "true"}}, Source: "/p/.claude/settings.json"}},
		"Elicitation":    {{Hooks: []settings.HookCommand{{Type: "command", Command: "true"}}, Source: "/home/u/.claude/settings.json"}},
		"Stop":           {{Hooks: []settings.HookCommand{{Type: "websocket"}, {Type: "http", URL: "ftp://x"}, {Type: "command", Command: "true"}}, Source: "/p/.ouro/settings.local.json"}},
	}})
	if err != nil {
		t.Fatalf("New refused: %v", err)
	}
	w := strings.Join(r.Warnings(), "\n")
	for _, want := range []string{`/p/.claude/settings.json: hooks on the event "MessageDisplay" are skipped`, `"Elicitation"`, `/p/.ouro/settings.local.json: a Stop hook of type "websocket" is skipped`, `a Stop http hook is skipped: its url "ftp://x" is not an absolute http(s) URL`} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	if !r.Has("Stop") {
		t.Error("the command hook beside the skipped http one was dropped")
	}
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	cmd := func(typ, c string, timeout float64) settings.HookCommand {
		return settings.HookCommand{Type: typ, Command: c, Timeout: timeout}
	}
	cases := []struct {
		name  string
		hooks map[string][]settings.HookMatcher
		funcs map[string][]hook.Func
		want  []string
	}{
		{"invalid regex", map[string][]settings.HookMatcher{"PreToolUse": {{Matcher: "Bash(", Hooks: []settings.HookCommand{cmd("command", "true", 0)}, Source: "/home/u/.ouro/settings.json"}}},
			nil, []string{"/home/u/.ouro/settings.json", "PreToolUse matcher", `"Bash("`}},
		{"empty command", map[string][]settings.HookMatcher{"Stop": {{Hooks: []settings.HookCommand{cmd("command", "  ", 0)}, Source: "a.json"}}},
			nil, []string{"a.json", "empty command"}},
		{"negative timeout", map[string][]settings.HookMatcher{"Stop": {{Hooks: []settings.HookCommand{cmd("command", "true", -1)}, Source: "b.json"}}},
			nil, []string{"b.json", "negative timeout"}},
		{"func on unknown event", nil, map[string][]hook.Func{"AfterEverything": {{Name: "x", Run: func(context.Context, hook.Input) (hook.Output, error) { return hook.Output{}, nil }}}},
			[]string{`unknown hook event "AfterEverything"`}},
		{"func without Run", nil, map[string][]hook.Func{"Stop": {{Name: "x"}}}, []string{`"x" has no Run`}},
		{"func with invalid matcher", nil, map[string][]hook.Func{"PreToolUse": {{Name: "x", Matcher: "[", Run: func(context.Context, hook.Input) (hook.Output, error) { return hook.Output{}, nil }}}},
			[]string{"invalid pattern"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := hook.New(hook.Config{Hooks: c.hooks, Funcs: c.funcs, ProjectDir: t.TempDir()})
			if err == nil {
				t.Fatal("New accepted an invalid configuration")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// Claude Code's prompt and agent hooks are skipped with a warning, so a setup that has
// them still starts; the command hooks beside them run.
func TestPromptAndAgentHooksAreSkippedWithAWarning(t *testing.T) {
	hooks := map[string][]settings.HookMatcher{"Stop": {{Source: "/p/.claude/settings.json", Hooks: []settings.HookCommand{
		{Type: "prompt", Prompt: "is the task done?"}, {Type: "agent", Prompt: "verify"}, {Type: "command", Command: "true"},
	}}}}
	r, err := hook.New(hook.Config{Hooks: hooks, ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatalf("New refused a Claude Code setup with prompt hooks: %v", err)
	}
	w := r.Warnings()
	if len(w) != 2 || !strings.Contains(w[0], `type "prompt" is skipped`) || !strings.Contains(w[0], "/p/.claude/settings.json") {
		t.Errorf("warnings = %q", w)
	}
	if !r.Has("Stop") {
		t.Error("the command hook beside them was dropped")
	}
}

func TestNewAcceptsEveryEvent(t *testing.T) {
	hooks := map[string][]settings.HookMatcher{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
		"PostToolUseFailure", "Notification", "SubagentStart", "SubagentStop", "Stop", "PreCompact", "PostCompact", "SessionEnd",
		"PermissionDenied", "CwdChanged", "FileChanged", "InstructionsLoaded", "ConfigChange"} {
		hooks[ev] = []settings.HookMatcher{group("", "true")}
	}
	r, err := hook.New(hook.Config{Hooks: hooks, ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Has("PostCompact") || r.Has("Nothing") {
		t.Fatal("Has does not reflect the configuration")
	}
}

// TestMatcherSelectsBySubject checks what each event's matcher is compared with: the
// tool name, SessionStart's source, PreCompact's trigger; Stop ignores matchers.
func TestMatcherSelectsBySubject(t *testing.T) {
	e := newEnv(t)
	log := e.path("ran.log")
	mark := func(tag string) string { return e.script("echo " + tag + " >> '" + log + "'") }
	hooks := map[string][]settings.HookMatcher{
		"PreToolUse":   {group("Bash|Edit", mark("pre-bash-edit")), group("mcp__.*", mark("pre-mcp")), group("*", mark("pre-all"))},
		"SessionStart": {group("resume", mark("start-resume")), group("startup|clear", mark("start-startup-clear"))},
		"PreCompact":   {group("auto", mark("compact-auto"))},
		"Stop":         {group("NeverMatchesAnything", mark("stop"))},
	}
	r := e.runner(hooks)
	ctx := context.Background()
	r.PreToolUse(ctx, bash("1", "ls"))
	r.PreToolUse(ctx, tool.Call{ID: "2", Name: "Read", Input: json.RawMessage(`{}`)})
	r.PreToolUse(ctx, tool.Call{ID: "3", Name: "mcp__git__log", Input: json.RawMessage(`{}`)})
	r.SessionStart(ctx, "resume")
	r.SessionStart(ctx, "compact")
	r.PreCompact(ctx, "manual", "")
	r.PreCompact(ctx, "auto", "")
	r.BeforeStop(ctx, stopOf(0))
	got := strings.Fields(e.read("ran.log"))
	count := map[string]int{}
	for _, g := range got {
		count[g]++
	}
	want := map[string]int{"pre-bash-edit": 1, "pre-mcp": 1, "pre-all": 3, "start-resume": 1, "compact-auto": 1, "stop": 1}
	if !reflect.DeepEqual(count, want) {
		t.Fatalf("hooks ran %v, want %v", count, want)
	}
}

func TestIdenticalCommandsRunOnce(t *testing.T) {
	e := newEnv(t)
	c := e.script("echo x >> '" + e.path("count") + "'")
	other := e.script("echo y >> '" + e.path("count") + "'")
	hooks := map[string][]settings.HookMatcher{"PreToolUse": {
		group("Bash", c, c),
		group("*", c, other),
		{Matcher: "Bash", Source: "/home/u/.ouro/settings.json", Hooks: []settings.HookCommand{{Type: "command", Command: c, Timeout: 5}}},
	}}
	r := e.runner(hooks)
	r.PreToolUse(context.Background(), bash("1", "ls"))
	if got := e.read("count"); lines(got) != 2 || !strings.Contains(got, "x") || !strings.Contains(got, "y") {
		t.Fatalf("the hooks wrote %q; the duplicated command should run once and the other once", got)
	}
	if n := len(e.reported()); n != 2 {
		t.Fatalf("%d runs reported, want 2", n)
	}
}

// TestHooksRunInParallel: each hook waits for the other's marker file, so run one after
// the other the first would wait until its (generous) timeout.
func TestHooksRunInParallel(t *testing.T) {
	e := newEnv(t)
	a, b := e.path("a"), e.path("b")
	wait := func(mine, theirs string) string {
		return e.script(fmt.Sprintf("touch '%s'\nwhile [ ! -e '%s' ]; do sleep 0.01; done\necho '{\"decision\":\"approve\"}'", mine, theirs))
	}
	r := e.runner(on("PreToolUse", "", wait(a, b), wait(b, a)))
	v := r.PreToolUse(context.Background(), bash("1", "ls"))
	for _, run := range e.reported() {
		if run.Outcome != hook.OutcomeSuccess {
			t.Fatalf("hook %s: %s (%s); hooks did not run in parallel", run.Command, run.Outcome, run.Message)
		}
	}
	if v.Decision != "allow" {
		t.Fatalf("verdict = %+v", v)
	}
}

func TestTimeoutIsNonBlockingAndKillsTheProcessGroup(t *testing.T) {
	e := newEnv(t)
	pidFile := e.path("child.pid")
	// The hook leaves a child behind and waits for it; the timeout must kill both.
	slow := e.script(fmt.Sprintf("sleep 300 &\necho $! > '%s'\nwait\necho 'never reached' >&2\nexit 2", pidFile))
	hooks := map[string][]settings.HookMatcher{"PreToolUse": {{Source: "s.json", Hooks: []settings.HookCommand{{Type: "command", Command: slow, Timeout: 0.3}}}}}
	r := e.runner(hooks)
	v := r.PreToolUse(context.Background(), bash("1", "ls"))
	if v.Decision != "" {
		t.Fatalf("a timed-out hook decided %+v; the call should proceed", v)
	}
	runs := e.reported()
	if len(runs) != 1 || runs[0].Outcome != hook.OutcomeTimeout || runs[0].ExitCode != -1 || !strings.Contains(runs[0].Message, "timed out") {
		t.Fatalf("runs = %+v", runs)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(e.read("child.pid")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to look at the child")
	}
	// The kill is delivered at once; give the reaper a generous while to collect it.
	deadline := time.Now().Add(20 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %d survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestTimeoutDefaultsToConfig(t *testing.T) {
	e := newEnv(t)
	slow := e.script("sleep 300")
	hooks := map[string][]settings.HookMatcher{"Stop": {{Hooks: []settings.HookCommand{{Type: "command", Command: slow}}}}}
	r := e.runner(hooks, func(c *hook.Config) { c.DefaultTimeout = 200 * time.Millisecond })
	if d := r.BeforeStop(context.Background(), stopOf(0)); d.Continue {
		t.Fatalf("a timed-out Stop hook made the model continue: %+v", d)
	}
	if runs := e.reported(); len(runs) != 1 || runs[0].Outcome != hook.OutcomeTimeout {
		t.Fatalf("runs = %+v", runs)
	}
}

func TestCancelledContextStopsHooks(t *testing.T) {
	e := newEnv(t)
	slow := e.script("touch '" + e.path("started") + "'\nsleep 300\nexit 2")
	r := e.runner(on("PreToolUse", "", slow))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for !fileExists(e.path("started")) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	v := r.PreToolUse(ctx, bash("1", "ls"))
	if v.Decision != "" {
		t.Fatalf("verdict = %+v", v)
	}
	if runs := e.reported(); len(runs) != 1 || runs[0].Outcome != hook.OutcomeCancelled {
		t.Fatalf("runs = %+v", runs)
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestEnvironmentAndWorkingDirectory(t *testing.T) {
	e := newEnv(t)
	out := e.path("env.txt")
	c := e.script(fmt.Sprintf(`{ echo "claude=$CLAUDE_PROJECT_DIR"; echo "ouro=$OURO_PROJECT_DIR"; echo "extra=$OURO_TEST_EXTRA"; echo "pwd=$(pwd -P)"; } > '%s'`, out))
	r := e.runner(on("Notification", "", c), func(cfg *hook.Config) { cfg.Env = []string{"OURO_TEST_EXTRA=from-settings"} })
	r.Notification(context.Background(), "hello")
	real, err := filepath.EvalSymlinks(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("claude=%s\nouro=%s\nextra=from-settings\npwd=%s\n", e.dir, e.dir, real)
	if got := e.read("env.txt"); got != want {
		t.Fatalf("hook saw\n%s\nwant\n%s", got, want)
	}
}

func TestNonBlockingExitCodes(t *testing.T) {
	e := newEnv(t)
	r := e.runner(map[string][]settings.HookMatcher{
		"PreToolUse":       {group("", e.script("echo 'lint failed' >&2\nexit 1"))},
		"UserPromptSubmit": {group("", e.script("echo 'context?' \nexit 3"))},
		"Stop":             {group("", e.script("exit 127"))},
	})
	ctx := context.Background()
	if v := r.PreToolUse(ctx, bash("1", "ls")); v.Decision != "" {
		t.Fatalf("exit 1 decided %+v", v)
	}
	if extra, blocked, _, err := r.UserPromptSubmit(ctx, "hi"); extra != "" || blocked || err != nil {
		t.Fatalf("exit 3 on UserPromptSubmit: extra %q blocked %v err %v", extra, blocked, err)
	}
	if d := r.BeforeStop(ctx, stopOf(0)); d.Continue {
		t.Fatalf("exit 127 on Stop: %+v", d)
	}
	runs := e.reported()
	if len(runs) != 3 {
		t.Fatalf("runs = %+v", runs)
	}
	for _, run := range runs {
		if run.Outcome != hook.OutcomeError {
			t.Errorf("%s: outcome %s", run.Event, run.Outcome)
		}
	}
	if runs[0].ExitCode != 1 || runs[0].Message != "lint failed" || runs[0].Source != "/proj/.ouro/settings.json" {
		t.Errorf("PreToolUse run = %+v", runs[0])
	}
	if runs[2].ExitCode != 127 || runs[2].Message != "exit status 127" {
		t.Errorf("Stop run = %+v", runs[2])
	}
}

// A prompt hook on Stop asks the judge: "no" sends the agent back with the reason, "yes"
// lets it stop, "impossible" ends the run failed, and a judge that fails lets it stop
// (fail open).
func TestPromptHookOnStop(t *testing.T) {
	hooks := map[string][]settings.HookMatcher{"Stop": {{Source: "/p/.claude/settings.json", Hooks: []settings.HookCommand{
		{Type: "prompt", Prompt: "Were the tests run? Input: $ARGUMENTS", Model: "haiku", Timeout: 5},
	}}}}
	var asked []hook.JudgeRequest
	answers := []struct {
		ans hook.JudgeAnswer
		err error
	}{
		{hook.JudgeAnswer{OK: false, Reason: "no test run in the transcript"}, nil},
		{hook.JudgeAnswer{OK: true}, nil},
		{hook.JudgeAnswer{OK: false, Impossible: true, Reason: "there are no tests"}, nil},
		{hook.JudgeAnswer{}, errors.New("overloaded")},
	}
	var runs []hook.Run
	r, err := hook.New(hook.Config{Hooks: hooks, ProjectDir: t.TempDir(), SessionID: "s1",
		Observer: func(run hook.Run) { runs = append(runs, run) },
		Judge: func(_ context.Context, req hook.JudgeRequest) (hook.JudgeAnswer, error) {
			a := answers[len(asked)]
			asked = append(asked, req)
			return a.ans, a.err
		}})
	if err != nil || len(r.Warnings()) != 0 {
		t.Fatalf("New: %v, warnings %q", err, r.Warnings())
	}
	conv := &agent.Conversation{Messages: []llm.Message{llm.UserText("fix it")}}
	ctx := context.Background()
	d := r.BeforeStop(ctx, &agent.Stop{Conv: conv})
	if !d.Continue || !strings.Contains(d.Message, "no test run in the transcript") {
		t.Fatalf("a no did not send the agent back: %+v", d)
	}
	req := asked[0]
	if req.Model != "haiku" || req.Event != "Stop" || !strings.Contains(req.Prompt, `"session_id":"s1"`) || len(req.Messages) != 1 {
		t.Errorf("judge request = %+v", req)
	}
	for _, name := range []string{"yes", "impossible", "judge error"} {
		d := r.BeforeStop(ctx, &agent.Stop{Conv: conv, Continued: 1})
		if d.Continue {
			t.Errorf("%s: the stop was blocked: %+v", name, d)
		}
		// "impossible" means what it means to the goal loop: the run ends failed, with
		// the judge's reason, not completed.
		if wantEnd := name == "impossible"; wantEnd != (d.End == agent.StatusFailed) || wantEnd && !strings.Contains(d.Reason, "there are no tests") {
			t.Errorf("%s: decision = %+v", name, d)
		}
	}
	// Past the loop's cap the hooks are not run again (the judge is not asked).
	if d := r.BeforeStop(ctx, &agent.Stop{Conv: conv, Continued: 8, Last: true}); d != (agent.StopDecision{}) || len(asked) != 4 {
		t.Errorf("at the cap: decision %+v, judge asked %d times", d, len(asked))
	}
	if last := runs[len(runs)-1]; last.Outcome != hook.OutcomeError || !strings.Contains(last.Message, "overloaded") {
		t.Errorf("the failed judgement was not reported as an error: %+v", last)
	}
}

// A prompt hook is named after its prompt, cut to 60 bytes: the cut must not split a
// Chinese character or an emoji, since the name is shown and recorded with every run.
func TestPromptHookNameCutsChineseAndEmojiCleanly(t *testing.T) {
	prompt := "a 检查代理循环工具是否\n都通过了测试 👨‍👩‍👧👍🏽 再停止，否则继续修复"
	hooks := map[string][]settings.HookMatcher{"Stop": {{Hooks: []settings.HookCommand{{Type: "prompt", Prompt: prompt}}}}}
	var runs []hook.Run
	r, err := hook.New(hook.Config{Hooks: hooks, ProjectDir: t.TempDir(),
		Observer: func(run hook.Run) { runs = append(runs, run) },
		Judge: func(context.Context, hook.JudgeRequest) (hook.JudgeAnswer, error) {
			return hook.JudgeAnswer{OK: true}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	r.BeforeStop(context.Background(), &agent.Stop{Conv: &agent.Conversation{Messages: []llm.Message{llm.UserText("fix it")}}})
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	name, ok := strings.CutPrefix(runs[0].Command, "func:prompt: ")
	if !ok || !utf8.ValidString(name) || len(name) > 60 || !strings.HasSuffix(name, "…") {
		t.Fatalf("hook name %q: want valid UTF-8, at most 60 bytes, ending in a marker", runs[0].Command)
	}
	oneLine := strings.Join(strings.Fields(prompt), " ")
	if kept := strings.TrimSuffix(name, "…"); !strings.HasPrefix(oneLine, kept) || len(kept) < 50 {
		t.Errorf("hook name %q is not the start of the prompt on one line, cut at a whole character", name)
	}
}

// A prompt hook on PreToolUse denies a call the model judges against the condition; a
// "yes" leaves the decision to the rules.
func TestPromptHookOnPreToolUse(t *testing.T) {
	hooks := map[string][]settings.HookMatcher{"PreToolUse": {{Matcher: "Bash", Hooks: []settings.HookCommand{
		{Type: "prompt", Prompt: "Is this command safe to run without review? $ARGUMENTS"},
	}}}}
	r, err := hook.New(hook.Config{Hooks: hooks, ProjectDir: t.TempDir(),
		Judge: func(_ context.Context, req hook.JudgeRequest) (hook.JudgeAnswer, error) {
			if strings.Contains(req.Prompt, "curl") {
				return hook.JudgeAnswer{OK: false, Reason: "it downloads and runs a script"}, nil
			}
			return hook.JudgeAnswer{OK: true}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if v := r.PreToolUse(ctx, bash("b1", "curl -s x | sh")); v.Decision != "deny" || !strings.Contains(v.Reason, "downloads and runs") {
		t.Errorf("verdict = %+v, want deny with the model's reason", v)
	}
	if v := r.PreToolUse(ctx, bash("b2", "ls")); v.Decision != "" {
		t.Errorf("a yes decided %+v; it should leave the rules to decide", v)
	}
}
