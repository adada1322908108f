package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/todo"
	"github.com/ouroagent/ouro/tool"
)

func bash(cmd string) []scripted.ToolCall {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return []scripted.ToolCall{{Name: "Bash", Input: in}}
}

func open(t *testing.T, home, cwd string, turns []scripted.Turn, mod func(*Options)) (*Session, *scripted.Provider) {
	t.Helper()
	p := scripted.New(&scripted.Script{Turns: turns})
	o := Options{Model: ModelOptions{Name: "scripted", Provider: p}, Dirs: Dirs{CWD: cwd, Home: home}, UI: UI{Warn: &bytes.Buffer{}}, Access: Access{Mode: "bypassPermissions"}}
	if mod != nil {
		mod(&o)
	}
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, p
}

func TestSessionRecordsAndContinues(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: bash("echo hello > f.txt && cat f.txt")},
		{ExpectContains: "hello", Text: "wrote it"},
	}, nil)
	want := []string{"Bash", "Glob", "Grep", "LS", "Read", "Edit", "Write", "WebFetch", "WebSearch", "AskUserQuestion", "NotebookEdit",
		"TaskCreate", "TaskGet", "TaskList", "TaskUpdate",
		"CronCreate", "CronDelete", "CronList", "ScheduleWakeup", "TaskOutput", "TaskStop", "BashOutput", "KillShell", "EnterWorktree", "ExitWorktree", "Agent", "Task", "SendMessage", "ToolSearch"}
	if got := s.Tools.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tools = %v", got)
	}
	if o := s.Run(context.Background(), "write hello"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	id := s.ID()
	s.Close()

	tr, err := session.Load(s.TranscriptPath())
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, e := range tr.Entries {
		types[e.Type]++
	}
	if types["user"] != 2 || types["assistant"] != 2 || types["tool"] != 1 || types["outcome"] != 1 {
		t.Fatalf("entries = %v", types)
	}

	s2, p2 := open(t, home, cwd, []scripted.Turn{{ExpectContains: "again", Text: "I remember"}}, func(o *Options) { o.Resume.Latest = true })
	if !s2.Resumed || s2.ID() != id || len(s2.Conv.Messages) != 4 {
		t.Fatalf("resumed=%v id=%s/%s messages=%d", s2.Resumed, s2.ID(), id, len(s2.Conv.Messages))
	}
	if o := s2.Run(context.Background(), "again"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	if n := len(p2.Requests()[0].Messages); n != 5 {
		t.Fatalf("the resumed request carried %d messages, want the 4 of history plus the prompt", n)
	}
}

func TestResumeRepairsADanglingCall(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	w, err := session.Create(ProjectDirFor(home, cwd), session.Meta{Model: "m", CWD: cwd})
	if err != nil {
		t.Fatal(err)
	}
	w.AppendMessage(llm.UserText("start"))
	w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUseBlock("toolu_x", "Bash", json.RawMessage(`{"command":"sleep 100"}`))}})
	w.Close()

	var warn bytes.Buffer
	s, p := open(t, home, cwd, []scripted.Turn{{Text: "ok"}}, func(o *Options) { o.Resume.ID = w.ID(); o.UI.Warn = &warn })
	if !strings.Contains(warn.String(), "toolu_x") {
		t.Fatalf("the repair was not reported: %q", warn.String())
	}
	if o := s.Run(context.Background(), "go on"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	if err := llm.ValidateConversation(p.Requests()[0].Messages); err != nil {
		t.Fatal(err)
	}
}

func TestSpilledOutputCanBeReadBack(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	// The spill path depends on the session ID, so the script is built after Open with a
	// provider that reads it lazily.
	lazy := &lazyProvider{}
	s, err := Open(Options{Model: ModelOptions{Name: "scripted", Provider: lazy}, Dirs: Dirs{CWD: cwd, Home: home}, UI: UI{Warn: &bytes.Buffer{}}, Access: Access{Mode: "bypassPermissions"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spill := filepath.Join(filepath.Dir(s.TranscriptPath()), s.ID(), "tool-results", "toolu_01_01.txt")
	in, _ := json.Marshal(map[string]any{"file_path": spill, "offset": 39990, "limit": 3})
	lazy.p = scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: bash("seq 1 40000")},
		{ExpectContains: spill, ToolCalls: []scripted.ToolCall{{Name: "Read", Input: in}}},
		{ExpectContains: "39991", Text: "read the rest"},
	}})
	if o := s.Run(context.Background(), "count"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
}

type lazyProvider struct{ p *scripted.Provider }

func (l *lazyProvider) Name() string { return "scripted" }
func (l *lazyProvider) Complete(ctx context.Context, r *llm.Request, f llm.StreamFunc) (*llm.Response, error) {
	return l.p.Complete(ctx, r, f)
}

type yes struct{ asked int }

func (y *yes) Approve(context.Context, permission.Prompt) (permission.Answer, error) {
	y.asked++
	return permission.Answer{Choice: permission.Once}, nil
}

func TestNotificationHookFiresBeforeAsking(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	log := filepath.Join(t.TempDir(), "notified")
	hookCmd := "cat > " + log
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Notification": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hookCmd}}}}}})
	in, _ := json.Marshal(map[string]string{"file_path": filepath.Join(cwd, "a.txt"), "content": "x"})
	y := &yes{}
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: in}}},
		{ExpectContains: "File created", Text: "done"},
	}, func(o *Options) { o.Access.Mode = ""; o.UI.Approver = y; o.Access.Settings = string(settings) })
	if out := s.Run(context.Background(), "write"); !out.OK() || y.asked != 1 {
		t.Fatalf("outcome = %+v, asked %d times", out, y.asked)
	}
	b, err := os.ReadFile(log)
	if err != nil || !strings.Contains(string(b), `"hook_event_name":"Notification"`) || !strings.Contains(string(b), "permission to use Write") {
		t.Fatalf("notification payload: %s, %v", b, err)
	}
}

func TestTodoListSurvivesResume(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	todos := json.RawMessage(`{"todos":[{"content":"write tests","status":"in_progress","activeForm":"Writing tests"},{"content":"ship","status":"pending","activeForm":"Shipping"}]}`)
	var shown [][]todo.Item
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "TodoWrite", Input: todos}}},
		{Text: "planned"},
	}, func(o *Options) {
		// TodoWrite is no longer offered by default; named, it still is.
		o.Access.Tools = []string{"TodoWrite"}
		o.UI.OnTodo = func(items []todo.Item) { shown = append(shown, items) }
	})
	if o := s.Run(context.Background(), "plan"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	if len(shown) != 1 || len(shown[0]) != 2 {
		t.Fatalf("OnTodo saw %v", shown)
	}
	s.Close()
	s2, _ := open(t, home, cwd, []scripted.Turn{{Text: "ok"}}, func(o *Options) { o.Resume.Latest = true })
	if got := s2.Todos.Items(); len(got) != 2 || got[0].Status != todo.InProgress {
		t.Fatalf("restored todos = %+v", got)
	}
}

func TestSkillsReachTheSystemPromptAndTools(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	dir := filepath.Join(cwd, ".ouro", "skills", "release-notes")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nBODY-MARKER $ARGUMENTS\n"), 0o644)
	in, _ := json.Marshal(map[string]string{"skill": "release-notes", "args": "v1.2"})
	s, p := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: in}}},
		{ExpectContains: "BODY-MARKER v1.2", Text: "done"},
	}, nil)
	if o := s.Run(context.Background(), "notes"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	sys := p.Requests()[0].System
	if !strings.Contains(sys, "release-notes") || !strings.Contains(sys, "Write release notes from the git log.") || strings.Contains(sys, "BODY-MARKER") {
		t.Fatalf("system prompt catalog wrong:\n%s", sys)
	}
}

func TestSkillAllowedToolsLastTheTurn(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	dir := filepath.Join(cwd, ".ouro", "skills", "lister")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: lister\ndescription: Lists things.\nallowed-tools: Bash(seq *)\n---\nRun seq.\n"), 0o644)
	in, _ := json.Marshal(map[string]string{"skill": "lister"})
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: in}}},
		{ToolCalls: bash("seq 1 3")},
		{ExpectContains: "3", Text: "listed"},
		{ToolCalls: bash("seq 1 4")},
		{ExpectContains: "Permission denied", Text: "refused next turn"},
	}, func(o *Options) { o.Access.Mode = "" })
	if o := s.Run(context.Background(), "list"); !o.OK() || len(o.Denials) != 0 {
		t.Fatalf("first turn: %+v", o)
	}
	if o := s.Run(context.Background(), "again"); !o.OK() || len(o.Denials) != 1 {
		t.Fatalf("second turn should be denied: %+v", o)
	}
}

func TestInstructionsAndMemoryReachTheModel(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(cwd, "AGENTS.md"), []byte("Always run gofmt. <!-- hidden -->\n"), 0o644)
	s, _ := open(t, home, cwd, []scripted.Turn{{Text: "unused"}}, nil)
	store := s.MemoryStores()[0]
	s.Close()
	if err := store.Save(memory.Record{Name: "db-choice", Description: "The project uses SQLite for storage", Type: "project", Body: "Chosen for a single static binary."}); err != nil {
		t.Fatal(err)
	}
	// Recall costs no model call: the index is in the system prompt, and the record the
	// request's words match is added in full to that request.
	s2, p := open(t, home, cwd, []scripted.Turn{
		{ExpectContains: "Chosen for a single static binary", Text: "SQLite, as remembered"},
	}, nil)
	if o := s2.Run(context.Background(), "which database storage do we use?"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	if n := len(p.Requests()); n != 1 {
		t.Fatalf("%d model calls, want 1 (recall needs none)", n)
	}
	sys := p.Requests()[0].System
	if !strings.Contains(sys, "Always run gofmt.") || strings.Contains(sys, "hidden") {
		t.Fatalf("instructions not in the system prompt:\n%s", sys)
	}
	if !strings.Contains(sys, "<memory>") || !strings.Contains(sys, "- db-choice (project, project): The project uses SQLite for storage") {
		t.Fatalf("the memory index is not in the system prompt:\n%s", sys)
	}
}

// UserConfigHome keeps a person's own configuration out of a session (an evaluation's
// runs): their CLAUDE.md is not in the system prompt, their hooks do not run.
func TestUserConfigHomeIsolatesPersonalConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "CLAUDE.md"), []byte("PERSONAL-RULE-7781\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	settingsJSON := `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo HOOK-RAN-4410"}]}]}}`
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(settingsJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	personal, _ := open(t, t.TempDir(), t.TempDir(), []scripted.Turn{{ExpectContains: "HOOK-RAN-4410", Text: "ok"}}, nil)
	if !strings.Contains(personal.Agent.Config().System, "PERSONAL-RULE-7781") {
		t.Fatal("the test's personal CLAUDE.md was not picked up at all; the isolation check below would prove nothing")
	}
	if out := personal.Run(context.Background(), "hi"); !out.OK() {
		t.Fatalf("the personal hook did not run: %+v", out)
	}

	isolated, prov2 := open(t, t.TempDir(), t.TempDir(), []scripted.Turn{{Text: "ok"}}, func(o *Options) { o.Dirs.UserConfig = t.TempDir() })
	if strings.Contains(isolated.Agent.Config().System, "PERSONAL-RULE-7781") {
		t.Error("the personal CLAUDE.md reached an isolated session")
	}
	if out := isolated.Run(context.Background(), "hi"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	if strings.Contains(prov2.Requests()[0].Messages[0].Text(), "HOOK-RAN-4410") {
		t.Error("the personal hook ran in an isolated session")
	}
}

// joiner is an extension for the tests: it records the workspace it is given and returns
// its part (or err).
type joiner struct {
	part mechanism.Part
	err  error
	env  mechanism.Env
}

func (j *joiner) Join(env mechanism.Env) (mechanism.Part, error) {
	j.env = env
	return j.part, j.err
}

type denyAll struct{}

func (denyAll) Gate(context.Context, tool.Call) agent.Decision {
	return agent.Decision{Deny: true, Reason: "the extension refuses every call"}
}

type stopOnce struct{ sent bool }

func (s *stopOnce) BeforeStop(context.Context, *agent.Stop) agent.StopDecision {
	if s.sent {
		return agent.StopDecision{}
	}
	s.sent = true
	return agent.StopDecision{Continue: true, Message: "the extension sends you back once"}
}

// An extension joins like the harness's own mechanisms: it gets the session's workspace,
// its prompt section is in the system prompt, its gate runs after the permission gate
// (which allows everything here) and its BeforeStop at the stop.
func TestExtensionJoinsTheSession(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	stop := &stopOnce{}
	j := &joiner{part: mechanism.Part{Name: "test", Prompt: "EXTENSION-SECTION",
		Gates: []agent.Gate{denyAll{}}, BeforeStop: []agent.BeforeStop{stop}}}
	s, prov := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: bash("echo hi")},
		{ExpectContains: "the extension refuses every call", Text: "refused"},
		{ExpectContains: "the extension sends you back once", Text: "done"},
	}, func(o *Options) { o.Extensions = []mechanism.Joiner{j} })
	if j.env.Workspace != s.Workspace {
		t.Fatal("the extension did not get the session's workspace")
	}
	if o := s.Run(context.Background(), "go"); !o.OK() || o.Result != "done" {
		t.Fatalf("outcome = %+v", o)
	}
	if sys := prov.Requests()[0].System; !strings.Contains(sys, "\n\nEXTENSION-SECTION\n") {
		t.Fatalf("the system prompt lacks the extension's section:\n%s", sys)
	}

	_, err := Open(Options{Model: ModelOptions{Name: "scripted", Provider: prov}, Dirs: Dirs{CWD: cwd, Home: home},
		UI: UI{Warn: &bytes.Buffer{}}, Extensions: []mechanism.Joiner{&joiner{err: errors.New("no room")}}})
	if err == nil || !strings.Contains(err.Error(), "no room") {
		t.Fatalf("a failed Join: err = %v", err)
	}
}

// A session whose transcript can no longer be written (here its writer is gone, as a
// full disk leaves it) stops before running anything, and the run fails saying why.
func TestSessionStopsWhenItsTranscriptFails(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	s, p := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: bash("echo ran > f.txt")},
		{Text: "went on"},
	}, nil)
	if err := s.writer.Close(); err != nil {
		t.Fatal(err)
	}
	o := s.Run(context.Background(), "write it")
	if o.Status != agent.StatusFailed || !strings.Contains(o.Reason, "record could not be written") {
		t.Fatalf("outcome %s: %s", o.Status, o.Reason)
	}
	if _, err := os.Stat(filepath.Join(cwd, "f.txt")); err == nil {
		t.Error("a call ran although nothing could be recorded")
	}
	if n := len(p.Requests()); n != 0 {
		t.Errorf("%d model calls after the prompt could not be recorded", n)
	}
}
