package hook_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

// payload reads the JSON a hook saved with `cat > name`.
func (e *env) payload(name string) map[string]any {
	e.t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(e.read(name)), &m); err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	return m
}

// PermissionDenied: Claude Code's fields (tool_name, tool_input, tool_use_id, reason),
// a tool-name matcher, and hookSpecificOutput.retry as the only decision.
func TestPermissionDeniedFieldsMatcherAndRetry(t *testing.T) {
	e := newEnv(t)
	save := e.script(`cat > "$CLAUDE_PROJECT_DIR/denied.json"`)
	retry := e.script(printJSON(`{"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": true}}`))
	hooks := map[string][]settings.HookMatcher{"PermissionDenied": {group("Bash", save), group("Write", retry)}}
	r := e.runner(hooks)
	ctx := context.Background()
	c := bash("tu-1", "rm -rf /tmp/x")
	if r.PermissionDenied(ctx, c, "dontAsk mode refuses it") {
		t.Error("retry without a hook saying so")
	}
	m := e.payload("denied.json")
	if m["hook_event_name"] != "PermissionDenied" || m["tool_name"] != "Bash" || m["tool_use_id"] != "tu-1" || m["reason"] != "dontAsk mode refuses it" {
		t.Errorf("payload = %v", m)
	}
	if in, _ := m["tool_input"].(map[string]any); in["command"] != "rm -rf /tmp/x" {
		t.Errorf("tool_input = %v", m["tool_input"])
	}
	w := tool.Call{ID: "tu-2", Name: "Write", Input: json.RawMessage(`{"file_path":"a","content":"b"}`)}
	if !r.PermissionDenied(ctx, w, "a deny rule") {
		t.Error("retry:true was not reported")
	}
	if r.Halted() != nil {
		t.Error("a PermissionDenied hook halted the run")
	}
}

// Exit code 2 cannot block PermissionDenied (nothing is left to block): its stderr is
// shown to the user and there is no retry.
func TestPermissionDeniedExitTwoIsShownNotRetry(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("PermissionDenied", "", e.script("echo 'noted the denial' >&2; exit 2")))
	if r.PermissionDenied(context.Background(), bash("1", "ls"), "headless") {
		t.Error("exit 2 meant retry")
	}
	if !strings.Contains(e.shown(), "noted the denial") {
		t.Errorf("user saw %q", e.shown())
	}
}

// CwdChanged: old_cwd and new_cwd; the payloads' cwd follows; watchPaths must be
// absolute; a CLAUDE_ENV_FILE is given.
func TestCwdChangedFieldsWatchPathsAndEnvFile(t *testing.T) {
	e := newEnv(t)
	save := e.script(`cat > "$CLAUDE_PROJECT_DIR/cwd.json"; echo "export FROM_CWD=1" >> "$CLAUDE_ENV_FILE"; ` +
		`printf '{"hookSpecificOutput":{"hookEventName":"CwdChanged","watchPaths":["/abs/.envrc","relative/.env"]}}'`)
	r := e.runner(on("CwdChanged", "", save))
	sub := filepath.Join(e.dir, "sub")
	watch := r.CwdChanged(context.Background(), e.dir, sub)
	if !reflect.DeepEqual(watch, []string{"/abs/.envrc"}) {
		t.Errorf("watch = %v", watch)
	}
	if !strings.Contains(e.shown(), `"relative/.env" is ignored`) {
		t.Errorf("the relative path was not refused aloud: %q", e.shown())
	}
	m := e.payload("cwd.json")
	if m["old_cwd"] != e.dir || m["new_cwd"] != sub || m["cwd"] != sub || m["hook_event_name"] != "CwdChanged" {
		t.Errorf("payload = %v", m)
	}
	files, _ := filepath.Glob(filepath.Join(r.EnvDir(), "*-CwdChanged-hook.sh"))
	if len(files) != 1 {
		t.Fatalf("env files %v", files)
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), "FROM_CWD=1") {
		t.Errorf("env file holds %q", b)
	}
	// No move, no hook.
	os.Remove(e.path("cwd.json"))
	r.CwdChanged(context.Background(), sub, sub)
	if fileExists(e.path("cwd.json")) {
		t.Error("CwdChanged fired without a change")
	}
	r.Close()
}

// FileChanged's matcher is a list of literal file names: ".env" is the file .env, not a
// pattern matching "xenv" or "a.env.bak".
func TestFileChangedMatcherIsLiteralNames(t *testing.T) {
	e := newEnv(t)
	save := e.script(`cat >> "$CLAUDE_PROJECT_DIR/changed.log"; echo >> "$CLAUDE_PROJECT_DIR/changed.log"`)
	r := e.runner(on("FileChanged", ".envrc|.env", save))
	if got := r.WatchNames(); !reflect.DeepEqual(got, []string{".envrc", ".env"}) {
		t.Errorf("WatchNames = %v", got)
	}
	ctx := context.Background()
	for _, p := range []string{"/p/xenv", "/p/a.env.bak", "/p/envrc"} {
		r.FileChanged(ctx, p, "change")
	}
	if fileExists(e.path("changed.log")) {
		t.Fatalf("the hook ran for a file it does not name:\n%s", e.read("changed.log"))
	}
	r.FileChanged(ctx, "/p/.env", "unlink")
	var m map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(e.read("changed.log"))), &m); err != nil {
		t.Fatal(err)
	}
	if m["file_path"] != "/p/.env" || m["event"] != "unlink" || m["hook_event_name"] != "FileChanged" {
		t.Errorf("payload = %v", m)
	}
}

// InstructionsLoaded: file_path, memory_type, load_reason (its matcher) and the optional
// globs, trigger_file_path, parent_file_path only when they apply. It only observes.
func TestInstructionsLoadedFieldsAndMatcher(t *testing.T) {
	e := newEnv(t)
	save := e.script(`cat > "$CLAUDE_PROJECT_DIR/loaded.json"; echo '{"decision":"block","reason":"no"}'`)
	r := e.runner(on("InstructionsLoaded", "path_glob_match", save))
	ctx := context.Background()
	r.InstructionsLoaded(ctx, hook.Instruction{Path: "/p/CLAUDE.md", MemoryType: "Project", LoadReason: "session_start"})
	if fileExists(e.path("loaded.json")) {
		t.Fatal("the matcher did not select by load_reason")
	}
	r.InstructionsLoaded(ctx, hook.Instruction{Path: "/p/.claude/rules/go.md", MemoryType: "Project", LoadReason: "path_glob_match",
		Globs: []string{"**/*.go"}, Trigger: "/p/main.go"})
	m := e.payload("loaded.json")
	if m["file_path"] != "/p/.claude/rules/go.md" || m["memory_type"] != "Project" || m["load_reason"] != "path_glob_match" ||
		m["trigger_file_path"] != "/p/main.go" || !reflect.DeepEqual(m["globs"], []any{"**/*.go"}) {
		t.Errorf("payload = %v", m)
	}
	if _, ok := m["parent_file_path"]; ok {
		t.Errorf("parent_file_path sent though nothing imported the file: %v", m)
	}
	if r.Halted() != nil {
		t.Error("an observing hook halted the run")
	}
}

// ConfigChange: source (its matcher) and file_path; exit 2 and decision "block" block
// with the reason; a block of policy_settings is ignored; continue:false blocks the
// change without stopping the run.
func TestConfigChangeDecisions(t *testing.T) {
	e := newEnv(t)
	save := e.script(`cat > "$CLAUDE_PROJECT_DIR/config.json"; echo 'project settings are frozen' >&2; exit 2`)
	block := e.script(printJSON(`{"decision": "block", "reason": "keep the local rules"}`))
	halt := e.script(printJSON(`{"continue": false, "stopReason": "no user changes"}`))
	hooks := map[string][]settings.HookMatcher{"ConfigChange": {
		group("project_settings|policy_settings", save), group("local_settings", block), group("user_settings", halt)}}
	r := e.runner(hooks)
	ctx := context.Background()
	blocked, reason := r.ConfigChange(ctx, "project_settings", "/p/.claude/settings.json")
	if !blocked || reason != "project settings are frozen" {
		t.Errorf("exit 2: blocked %v %q", blocked, reason)
	}
	m := e.payload("config.json")
	if m["source"] != "project_settings" || m["file_path"] != "/p/.claude/settings.json" || m["hook_event_name"] != "ConfigChange" {
		t.Errorf("payload = %v", m)
	}
	if blocked, reason = r.ConfigChange(ctx, "local_settings", "/p/.claude/settings.local.json"); !blocked || reason != "keep the local rules" {
		t.Errorf("decision block: blocked %v %q", blocked, reason)
	}
	if blocked, _ = r.ConfigChange(ctx, "policy_settings", "/etc/claude-code/managed-settings.json"); blocked {
		t.Error("a hook blocked a change of managed settings")
	}
	if !strings.Contains(e.shown(), "managed settings cannot be blocked") {
		t.Errorf("user saw %q", e.shown())
	}
	if blocked, reason = r.ConfigChange(ctx, "user_settings", "/home/u/.claude/settings.json"); !blocked || reason != "no user changes" {
		t.Errorf("continue:false: blocked %v %q", blocked, reason)
	}
	if r.Halted() != nil {
		t.Error("a ConfigChange hook's continue:false stopped the run")
	}
	if blocked, _ = r.ConfigChange(ctx, "skills", "/p/.claude/skills/x/SKILL.md"); blocked {
		t.Error("no hook matches skills, yet it was blocked")
	}
}

// A prompt hook on PostToolUse: the model's "no" reaches the model as feedback on the
// call's result (the turn goes on); a "yes" adds nothing.
func TestPromptHookOnPostToolUse(t *testing.T) {
	hooks := map[string][]settings.HookMatcher{"PostToolUse": {{Matcher: "Edit|Write", Hooks: []settings.HookCommand{
		{Type: "prompt", Prompt: "Does this change keep the tests? $ARGUMENTS"},
	}}}}
	var asked []hook.JudgeRequest
	r, err := hook.New(hook.Config{Hooks: hooks, ProjectDir: t.TempDir(),
		Judge: func(_ context.Context, req hook.JudgeRequest) (hook.JudgeAnswer, error) {
			asked = append(asked, req)
			if strings.Contains(req.Prompt, "t.Skip") {
				return hook.JudgeAnswer{OK: false, Reason: "it disables a test"}, nil
			}
			return hook.JudgeAnswer{OK: true}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings()) > 0 {
		t.Fatalf("warnings: %v", r.Warnings())
	}
	ctx := context.Background()
	bad := tool.Call{ID: "e1", Name: "Edit", Input: json.RawMessage(`{"file_path":"a_test.go","old_string":"t.Run","new_string":"t.Skip"}`)}
	res := tool.Text("edited")
	r.AfterTool(ctx, bad, &res)
	if res.IsError || !strings.HasPrefix(res.Text(), "edited") || !strings.Contains(res.Text(), "PostToolUse hook feedback: it disables a test") {
		t.Errorf("result = %q", res.Text())
	}
	if len(asked) != 1 || asked[0].Event != "PostToolUse" || !strings.Contains(asked[0].Prompt, `"tool_response"`) {
		t.Fatalf("judge asked %+v", asked)
	}
	good := tool.Call{ID: "e2", Name: "Write", Input: json.RawMessage(`{"file_path":"b.go","content":"package b"}`)}
	res = tool.Text("written")
	r.AfterTool(ctx, good, &res)
	if res.Text() != "written" {
		t.Errorf("a yes changed the result: %q", res.Text())
	}
	res = tool.Text("listed")
	r.AfterTool(ctx, bash("b1", "skip"), &res)
	if len(asked) != 2 || res.Text() != "listed" {
		t.Errorf("the matcher did not keep Bash from the prompt hook: %d asks, %q", len(asked), res.Text())
	}
}

// The Watcher fires FileChanged for a file the matcher names in the working directory
// (add, change, unlink), for a watchPath a CwdChanged hook asked for, and ConfigChange
// for a settings file; nothing for files it was not asked to watch.
func TestWatcherFiresFileChangedAndConfigChange(t *testing.T) {
	e := newEnv(t)
	log := e.path("events.log")
	record := e.script(`cat >> "` + log + `"; echo >> "` + log + `"`)
	other := t.TempDir()
	extra := filepath.Join(other, "watched.txt")
	cwdHook := e.script(`printf '{"hookSpecificOutput":{"hookEventName":"CwdChanged","watchPaths":["` + extra + `"]}}'`)
	settingsFile := filepath.Join(e.dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settingsFile), 0o755)
	os.WriteFile(settingsFile, []byte(`{}`), 0o644)
	hooks := map[string][]settings.HookMatcher{
		"FileChanged":  {group(".env", record), group("*", record)},
		"CwdChanged":   {group("", cwdHook)},
		"ConfigChange": {group("project_settings", record)},
	}
	r := e.runner(hooks)
	var mu sync.Mutex
	var verdicts []string
	w, err := r.Watch(hook.WatchConfig{CWD: e.dir, Settings: map[string]string{settingsFile: "project_settings"},
		OnConfig: func(source, path string, blocked bool, reason string) {
			mu.Lock()
			verdicts = append(verdicts, source)
			mu.Unlock()
		}})
	if err != nil || w == nil {
		t.Fatalf("Watch: %v %v", w, err)
	}
	defer w.Close()
	wait := func(want string) map[string]any {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			b, _ := os.ReadFile(log)
			for _, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, want) {
					var m map[string]any
					if json.Unmarshal([]byte(l), &m) == nil {
						os.WriteFile(log, nil, 0o644)
						return m
					}
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		b, _ := os.ReadFile(log)
		t.Fatalf("no event with %s; log:\n%s", want, b)
		return nil
	}
	// A change while a file's hooks run, or within Settle after, is taken as theirs: the
	// steps below wait for the hook process to be done and that time to pass.
	const quiet = 2 * time.Second
	env := e.path(".env")
	os.WriteFile(env, []byte("A=1\n"), 0o644)
	if m := wait(`"event":"add"`); m["file_path"] != env {
		t.Errorf("add: %v", m)
	}
	time.Sleep(quiet)
	os.WriteFile(env, []byte("A=2\n"), 0o644)
	if m := wait(`"event":"change"`); m["file_path"] != env {
		t.Errorf("change: %v", m)
	}
	time.Sleep(quiet)
	os.Remove(env)
	if m := wait(`"event":"unlink"`); m["file_path"] != env {
		t.Errorf("unlink: %v", m)
	}
	os.WriteFile(settingsFile, []byte(`{"permissions":{}}`), 0o644)
	if m := wait(`"hook_event_name":"ConfigChange"`); m["source"] != "project_settings" || m["file_path"] != settingsFile {
		t.Errorf("config change: %v", m)
	}
	// A file nobody asked for: nothing.
	os.WriteFile(e.path("unwatched.txt"), []byte("x"), 0o644)
	// The working directory moves: the CwdChanged hook asks for extra, which is watched.
	w.SetCWD(other, r.CwdChanged(context.Background(), e.dir, other))
	if !contains(w.Paths(), extra) {
		t.Fatalf("watched %v, not %s", w.Paths(), extra)
	}
	os.WriteFile(extra, []byte("x"), 0o644)
	if m := wait(`watched.txt`); m["event"] != "add" {
		t.Errorf("watchPath: %v", m)
	}
	time.Sleep(quiet)
	b, _ := os.ReadFile(log)
	if strings.Contains(string(b), "unwatched") {
		t.Errorf("an unwatched file fired:\n%s", b)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(verdicts) != 1 {
		t.Errorf("OnConfig told %v", verdicts)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// No hook that a change concerns: no watcher at all.
func TestWatchWithoutHooksIsNil(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("Stop", "", "true"))
	if w, err := r.Watch(hook.WatchConfig{CWD: e.dir}); w != nil || err != nil {
		t.Errorf("Watch = %v, %v", w, err)
	}
}

// What a CwdChanged hook exports after a cd overrides what SessionStart exported: the
// env files are sourced in name order, which is run order whatever the event.
func TestCwdChangedEnvFileOverridesSessionStart(t *testing.T) {
	e := newEnv(t)
	hooks := map[string][]settings.HookMatcher{
		"SessionStart": {group("", e.script(`echo "export WHERE=start" >> "$CLAUDE_ENV_FILE"`))},
		"CwdChanged":   {group("", e.script(`echo "export WHERE=moved" >> "$CLAUDE_ENV_FILE"`))},
	}
	r := e.runner(hooks)
	defer r.Close()
	r.SessionStart(context.Background(), "startup")
	r.CwdChanged(context.Background(), e.dir, filepath.Join(e.dir, "sub"))
	files, _ := filepath.Glob(filepath.Join(r.EnvDir(), "*.sh"))
	sort.Strings(files)
	script := ""
	for _, f := range files {
		script += ". '" + f + "'; "
	}
	out, err := exec.Command("sh", "-c", script+`printf %s "$WHERE"`).Output()
	if err != nil || string(out) != "moved" {
		t.Errorf("sourced in name order (%v): WHERE=%q, %v", files, out, err)
	}
}

// Attacks on the watcher: a FileChanged hook that rewrites the file it watches runs once
// per outside change, not for ever; a file whose name is shell syntax reaches hooks as
// data in the JSON only; hooks cannot make it watch more than MaxWatchPaths files.
func TestWatcherAttacks(t *testing.T) {
	e := newEnv(t)
	count := e.path("runs.log")
	evil := "$(touch PWNED).env"
	rewrite := e.script(`echo run >> "` + count + `"; echo touched >> "$CLAUDE_PROJECT_DIR/.env"`)
	many := make([]string, 0, hook.MaxWatchPaths+10)
	for i := 0; i < hook.MaxWatchPaths+10; i++ {
		many = append(many, filepath.Join(e.dir, "w", strconv.Itoa(i)))
	}
	list, _ := json.Marshal(many)
	cwd := e.script(`printf '{"hookSpecificOutput":{"hookEventName":"CwdChanged","watchPaths":` + string(list) + `}}'`)
	save := e.script(`cat >> "$CLAUDE_PROJECT_DIR/evil.log"`)
	r := e.runner(map[string][]settings.HookMatcher{
		"FileChanged": {group(".env", rewrite), group(evil, save)},
		"CwdChanged":  {group("", cwd)},
	})
	w, err := r.Watch(hook.WatchConfig{CWD: e.dir})
	if err != nil || w == nil {
		t.Fatal(w, err)
	}
	defer w.Close()
	os.WriteFile(e.path(".env"), []byte("A=1\n"), 0o644)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(count); strings.Contains(string(b), "run") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(6 * hook.Settle)
	if runs := strings.Count(e.read("runs.log"), "run"); runs != 1 {
		t.Errorf("the hook that rewrites its file ran %d times", runs)
	}
	os.WriteFile(filepath.Join(e.dir, evil), []byte("x"), 0o644)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(e.path("evil.log")); strings.Contains(string(b), "}") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(e.read("evil.log"), `"file_path":"`+filepath.Join(e.dir, evil)+`"`) {
		t.Errorf("payload %q", e.read("evil.log"))
	}
	if fileExists(e.path("PWNED")) {
		t.Error("a file name ran as a command")
	}
	w.SetCWD(e.dir, r.CwdChanged(context.Background(), e.dir, filepath.Join(e.dir, "x")))
	if n := len(w.Paths()); n > hook.MaxWatchPaths+3 {
		t.Errorf("watching %d files", n)
	}
	if !strings.Contains(e.shown(), "10 more are not watched") {
		t.Errorf("user saw %q", e.shown())
	}
}

// A move of the working directory drops what CwdChanged hooks exported for the old one
// (a project's variables do not follow the agent into another); SessionStart's stay.
func TestCwdChangedDropsTheOldDirectorysEnv(t *testing.T) {
	e := newEnv(t)
	hooks := map[string][]settings.HookMatcher{
		"SessionStart": {group("", e.script(`echo "export KEEP=1" >> "$CLAUDE_ENV_FILE"`))},
		"CwdChanged": {group("", e.script(`d=$(cat | sed -n 's/.*"new_cwd":"\([^"]*\)".*/\1/p'); `+
			`case "$d" in */a) echo "export ONLY_A=1" >> "$CLAUDE_ENV_FILE";; esac`))},
	}
	r := e.runner(hooks)
	defer r.Close()
	ctx := context.Background()
	r.SessionStart(ctx, "startup")
	a, b := filepath.Join(e.dir, "a"), filepath.Join(e.dir, "b")
	env := func() string {
		files, _ := filepath.Glob(filepath.Join(r.EnvDir(), "*.sh"))
		sort.Strings(files)
		script := ""
		for _, f := range files {
			script += ". '" + f + "'; "
		}
		out, _ := exec.Command("sh", "-c", script+`printf '%s/%s' "$KEEP" "$ONLY_A"`).Output()
		return string(out)
	}
	r.CwdChanged(ctx, e.dir, a)
	if got := env(); got != "1/1" {
		t.Fatalf("in a: %q", got)
	}
	r.CwdChanged(ctx, a, b)
	if got := env(); got != "1/" {
		t.Errorf("in b: %q, want a's variable gone and SessionStart's kept", got)
	}
}

// What ouro itself writes to a settings file (Watcher.Ours: a rule approved for always)
// is not told to the ConfigChange hooks; a change from outside after it is.
func TestWatcherSkipsOuroOwnSettingsWrites(t *testing.T) {
	e := newEnv(t)
	log := e.path("config.log")
	settingsFile := filepath.Join(e.dir, "settings.local.json")
	os.WriteFile(settingsFile, []byte(`{}`), 0o644)
	r := e.runner(on("ConfigChange", "", e.script(`cat >> "`+log+`"; echo >> "`+log+`"`)))
	w, err := r.Watch(hook.WatchConfig{CWD: e.dir, Settings: map[string]string{settingsFile: "local_settings"}})
	if err != nil || w == nil {
		t.Fatal(w, err)
	}
	defer w.Close()
	own := []byte(`{"permissions":{"allow":["Bash(make *)"]}}`)
	w.Ours(settingsFile, own)
	os.WriteFile(settingsFile, own, 0o644)
	time.Sleep(6 * hook.Settle)
	if fileExists(log) {
		t.Fatalf("ouro's own write was told: %s", e.read("config.log"))
	}
	os.WriteFile(settingsFile, []byte(`{"permissions":{"allow":["Bash"]}}`), 0o644)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(log); strings.Contains(string(b), "}") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(e.read("config.log"), `"source":"local_settings"`) {
		t.Errorf("the outside change was not told: %q", e.read("config.log"))
	}
}
