package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ouroagent/ouro/acp"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// TestMain lets this test binary serve as the sandbox launcher, as ouro's main does.
func TestMain(m *testing.M) {
	sandbox.MaybeRunLauncher()
	os.Exit(m.Run())
}

// client is the editor's side, on the Go library's ClientSideConnection: it records
// every update and answers permission requests from a list of option ids.
type client struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	asked   []sdk.RequestPermissionRequest
	answers []string
	// onUpdate, when set, sees each update as it arrives (to cancel a turn midway).
	onUpdate func(sdk.SessionNotification)
	// onAsk, when set, runs while a permission request waits for its answer.
	onAsk func()
	// buffers are the files open in the editor (fs/read_text_file, fs/write_text_file).
	buffers map[string]string
}

func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	f := c.onAsk
	c.mu.Unlock()
	if f != nil {
		// An editor showing the question until the user acts: here, until the turn is
		// cancelled, after which the agent no longer waits for the answer.
		f()
		<-ctx.Done()
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, p)
	if len(c.answers) == 0 {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	id := c.answers[0]
	c.answers = c.answers[1:]
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(id))}, nil
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	f := c.onUpdate
	c.mu.Unlock()
	if f != nil {
		f(n)
	}
	return nil
}

func (c *client) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buffers == nil {
		return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsReadTextFile)
	}
	text, ok := c.buffers[p.Path]
	if !ok {
		data, err := os.ReadFile(p.Path)
		if err != nil {
			return sdk.ReadTextFileResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
		}
		text = string(data)
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}
func (c *client) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buffers == nil {
		return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsWriteTextFile)
	}
	c.buffers[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}
func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalCreate)
}
func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalKill)
}
func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalOutput)
}
func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalRelease)
}
func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalWaitForExit)
}

// on sets the hooks while updates may be arriving.
func (c *client) on(update func(sdk.SessionNotification), ask func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onUpdate, c.onAsk = update, ask
}

func (c *client) all() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionNotification(nil), c.updates...)
}

// rig is an agent and a client joined by pipes, sharing one scripted model.
type rig struct {
	t    *testing.T
	cwd  string
	home string
	conn *sdk.ClientSideConnection
	cl   *client
	ag   *acp.Agent
	warn *bytes.Buffer
}

func newRig(t *testing.T, cwd, home string, p *scripted.Provider, mode string) *rig {
	t.Helper()
	r := &rig{t: t, cwd: cwd, home: home, cl: &client{}, warn: &bytes.Buffer{}}
	user := t.TempDir()
	r.ag = acp.New(acp.Config{Version: "test", Warn: io.Discard, Options: func() harness.Options {
		return harness.Options{Model: harness.ModelOptions{Name: "scripted", Provider: p},
			Dirs: harness.Dirs{Home: home, UserConfig: user}, Access: harness.Access{Mode: mode}}
	}})
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	r.ag.Connect(context.Background(), toAgentR, toClientW)
	r.conn = sdk.NewClientSideConnection(r.cl, toAgentW, toClientR)
	r.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() {
		toAgentW.Close()
		toClientW.Close()
		r.ag.Close()
	})
	return r
}

func (r *rig) init() sdk.InitializeResponse {
	r.t.Helper()
	resp, err := r.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		r.t.Fatal(err)
	}
	return resp
}

func (r *rig) newSession() sdk.NewSessionResponse {
	r.t.Helper()
	resp, err := r.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: r.cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		r.t.Fatal(err)
	}
	return resp
}

func (r *rig) prompt(id sdk.SessionId, text string) sdk.StopReason {
	r.t.Helper()
	resp, err := r.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		r.t.Fatal(err)
	}
	return resp.StopReason
}

func input(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func call(name string, in any) []scripted.ToolCall {
	return []scripted.ToolCall{{Name: name, Input: input(in)}}
}

func TestInitializeAdvertisesCapabilities(t *testing.T) {
	r := newRig(t, t.TempDir(), t.TempDir(), scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "unused"}}}), "")
	resp := r.init()
	c := resp.AgentCapabilities
	if !c.LoadSession || !c.PromptCapabilities.Image || !c.PromptCapabilities.EmbeddedContext || c.PromptCapabilities.Audio || !c.McpCapabilities.Http {
		t.Fatalf("capabilities = %+v", c)
	}
	if c.SessionCapabilities.Close == nil || c.SessionCapabilities.AdditionalDirectories == nil || c.SessionCapabilities.List != nil {
		t.Fatalf("session capabilities = %+v", c.SessionCapabilities)
	}
	if resp.ProtocolVersion != sdk.ProtocolVersionNumber || resp.AgentInfo == nil || resp.AgentInfo.Name != "ouro" {
		t.Fatalf("initialize = %+v", resp)
	}
}

// A turn that reads, plans, edits twice (the first allowed, the second rejected) and
// answers: every step reaches the client as the update ACP has for it.
func TestPromptStreamsToolCallsPermissionsAndPlan(t *testing.T) {
	cwd := t.TempDir()
	file := filepath.Join(cwd, "notes.txt")
	if err := os.WriteFile(file, []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{Thinking: "look first", ToolCalls: call("Read", map[string]any{"file_path": file})},
		{ExpectContains: "alpha", ToolCalls: call("TaskCreate", map[string]any{"subject": "Rename beta", "description": "in notes"})},
		{ToolCalls: call("Edit", map[string]any{"file_path": file, "old_string": "beta", "new_string": "gamma"})},
		{ToolCalls: call("Edit", map[string]any{"file_path": file, "old_string": "alpha", "new_string": "omega"})},
		{ExpectContains: "rejected", Text: "renamed beta; left alpha"},
	}})
	r := newRig(t, cwd, t.TempDir(), p, "")
	r.cl.answers = []string{"allow_once", "reject"}
	r.init()
	s := r.newSession()
	if s.Modes == nil || s.Modes.CurrentModeId != "default" || len(s.Modes.AvailableModes) != 5 {
		t.Fatalf("modes = %+v", s.Modes)
	}
	if got := r.prompt(s.SessionId, "rename beta"); got != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason = %s", got)
	}
	data, _ := os.ReadFile(file)
	if string(data) != "alpha\ngamma\n" {
		t.Fatalf("file = %q", data)
	}
	if len(r.cl.asked) != 2 {
		t.Fatalf("permission requests = %d, want 2 (one per Edit)", len(r.cl.asked))
	}
	ask := r.cl.asked[0]
	ids := []string{}
	for _, o := range ask.Options {
		ids = append(ids, string(o.OptionId)+":"+string(o.Kind))
	}
	if strings.Join(ids, " ") != "allow_once:allow_once allow_always:allow_always reject:reject_once" {
		t.Fatalf("options = %v", ids)
	}
	if ask.ToolCall.Kind == nil || *ask.ToolCall.Kind != sdk.ToolKindEdit || len(ask.ToolCall.Locations) != 1 || ask.ToolCall.Locations[0].Path != file {
		t.Fatalf("permission tool call = %+v", ask.ToolCall)
	}

	var kinds, statuses, thoughts, text []string
	var diff *sdk.ToolCallContentDiff
	var plan *sdk.SessionUpdatePlan
	for _, n := range r.cl.all() {
		u := n.Update
		switch {
		case u.ToolCall != nil:
			kinds = append(kinds, string(u.ToolCall.Kind))
			for _, c := range u.ToolCall.Content {
				if c.Diff != nil && diff == nil {
					diff = c.Diff
				}
			}
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			statuses = append(statuses, string(*u.ToolCallUpdate.Status))
		case u.AgentThoughtChunk != nil:
			thoughts = append(thoughts, u.AgentThoughtChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			text = append(text, u.AgentMessageChunk.Content.Text.Text)
		case u.Plan != nil:
			plan = u.Plan
		}
	}
	if strings.Join(kinds, ",") != "read,other,edit,edit" {
		t.Fatalf("tool call kinds = %v", kinds)
	}
	// Read, TaskCreate and the first Edit run and complete; the rejected Edit fails.
	if strings.Join(statuses, ",") != "in_progress,completed,in_progress,completed,in_progress,completed,failed" {
		t.Fatalf("tool call statuses = %v", statuses)
	}
	if diff == nil || diff.Path != file || diff.OldText == nil || *diff.OldText != "beta" || diff.NewText != "gamma" {
		t.Fatalf("edit diff = %+v", diff)
	}
	if strings.Join(thoughts, "") != "look first" || strings.Join(text, "") != "renamed beta; left alpha" {
		t.Fatalf("thoughts %q, text %q", thoughts, text)
	}
	if plan == nil || len(plan.Entries) != 1 || plan.Entries[0].Content != "#1 Rename beta" {
		t.Fatalf("plan = %+v", plan)
	}
}

// "Allow always" adds the suggested rule for the session: the same command is not
// asked about again.
func TestAllowAlwaysIsASessionRule(t *testing.T) {
	cwd := t.TempDir()
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: call("Bash", map[string]any{"command": "touch made.txt"})},
		{ToolCalls: call("Bash", map[string]any{"command": "touch made.txt"})},
		{Text: "done"},
	}})
	r := newRig(t, cwd, t.TempDir(), p, "")
	r.cl.answers = []string{"allow_always"}
	r.init()
	s := r.newSession()
	if got := r.prompt(s.SessionId, "make it twice"); got != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason = %s", got)
	}
	if len(r.cl.asked) != 1 {
		t.Fatalf("asked %d times, want once", len(r.cl.asked))
	}
	if _, err := os.Stat(filepath.Join(cwd, "made.txt")); err != nil {
		t.Fatal(err)
	}
}

// session/cancel in the middle of a command ends the turn with stop reason cancelled.
func TestCancelStopsTheTurn(t *testing.T) {
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: call("Bash", map[string]any{"command": "sleep 60"})},
		{Text: "never"},
	}})
	r := newRig(t, t.TempDir(), t.TempDir(), p, "bypassPermissions")
	r.init()
	s := r.newSession()
	r.cl.on(func(n sdk.SessionNotification) {
		if u := n.Update.ToolCallUpdate; u != nil && u.Status != nil && *u.Status == sdk.ToolCallStatusInProgress {
			go r.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: s.SessionId})
		}
	}, nil)
	if got := r.prompt(s.SessionId, "wait"); got != sdk.StopReasonCancelled {
		t.Fatalf("stop reason = %s, want cancelled", got)
	}
}

// session/load resumes a session on a new connection and replays it.
func TestLoadReplaysTheConversation(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: call("LS", map[string]any{"path": cwd})},
		{Text: "an empty folder"},
		{ExpectContains: "again", Text: "still empty"},
	}})
	first := newRig(t, cwd, home, p, "")
	first.init()
	s := first.newSession()
	first.prompt(s.SessionId, "what is here?")
	first.ag.Close()

	second := newRig(t, cwd, home, p, "")
	second.init()
	if _, err := second.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: cwd, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, n := range second.cl.all() {
		u := n.Update
		switch {
		case u.UserMessageChunk != nil:
			seen = append(seen, "user:"+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			seen = append(seen, "agent:"+u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			seen = append(seen, "call:"+string(u.ToolCall.Kind))
		case u.ToolCallUpdate != nil:
			seen = append(seen, "result:"+string(*u.ToolCallUpdate.Status))
		}
	}
	if got := strings.Join(seen, " | "); !strings.Contains(got, "user:what is here? | call:search | result:completed | agent:an empty folder") {
		t.Fatalf("replay = %s", got)
	}
	if got := second.prompt(s.SessionId, "look again"); got != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason after load = %s", got)
	}
	if _, err := second.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: "no-such-session", Cwd: cwd, McpServers: []sdk.McpServer{}}); err == nil {
		t.Fatal("loading an unknown session succeeded")
	}
}

// session/set_mode switches ouro's permission mode: in plan mode an edit is refused
// without asking.
func TestSetModeSwitchesThePermissionMode(t *testing.T) {
	cwd := t.TempDir()
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: call("Write", map[string]any{"file_path": filepath.Join(cwd, "x.txt"), "content": "x"})},
		{Text: "could not"},
	}})
	r := newRig(t, cwd, t.TempDir(), p, "")
	r.init()
	s := r.newSession()
	if _, err := r.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "yolo"}); err == nil {
		t.Fatal("an unknown mode was accepted")
	}
	r.prompt(s.SessionId, "write x")
	if len(r.cl.asked) != 0 {
		t.Fatalf("plan mode asked %d times", len(r.cl.asked))
	}
	if _, err := os.Stat(filepath.Join(cwd, "x.txt")); err == nil {
		t.Fatal("plan mode wrote the file")
	}
	var mode string
	for _, n := range r.cl.all() {
		if u := n.Update.CurrentModeUpdate; u != nil {
			mode = string(u.CurrentModeId)
		}
	}
	if mode != "plan" {
		t.Fatalf("current_mode_update = %q", mode)
	}
}

// The skills the user may invoke are advertised as commands.
func TestSkillsAreAdvertisedAsCommands(t *testing.T) {
	cwd := t.TempDir()
	dir := filepath.Join(cwd, ".ouro", "skills", "release-notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	skill := "---\nname: release-notes\ndescription: Write the release notes\nargument-hint: VERSION\n---\nWrite notes for $ARGUMENTS.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, cwd, t.TempDir(), scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "unused"}}}), "")
	got := make(chan []sdk.AvailableCommand, 1)
	r.cl.on(func(n sdk.SessionNotification) {
		if u := n.Update.AvailableCommandsUpdate; u != nil {
			got <- u.AvailableCommands
		}
	}, nil)
	r.init()
	r.newSession()
	cmds := <-got // sent once session/new has been answered
	if len(cmds) != 1 || cmds[0].Name != "release-notes" || cmds[0].Description != "Write the release notes" ||
		cmds[0].Input == nil || cmds[0].Input.Unstructured == nil || cmds[0].Input.Unstructured.Hint != "VERSION" {
		t.Fatalf("commands = %+v", cmds)
	}
}

// A client that sends its requests and closes its end still gets every answer: Serve
// returns only once they are written.
func TestServeAnswersWhatCameBeforeTheEnd(t *testing.T) {
	cwd := t.TempDir()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + strconvQuote(cwd) + `,"mcpServers":[]}}` + "\n"
	var out bytes.Buffer
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "unused"}}})
	err := acp.Serve(context.Background(), acp.Config{Warn: io.Discard, Options: func() harness.Options {
		return harness.Options{Model: harness.ModelOptions{Name: "scripted", Provider: p}, Dirs: harness.Dirs{Home: t.TempDir(), UserConfig: t.TempDir()}}
	}}, strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	answer, commands := strings.Index(out.String(), `"id":2,"result":{"modes"`), strings.Index(out.String(), `"available_commands_update"`)
	if answer < 0 || commands < answer {
		t.Fatalf("want session/new's answer, then the commands of the session it names:\n%s", out.String())
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A client that offers its file system is where Read and Edit go: the model reads the
// unsaved buffer and its edit lands in the buffer, while the disk stays as it was.
func TestEditorFileSystemHoldsTheFiles(t *testing.T) {
	cwd := t.TempDir()
	file := filepath.Join(cwd, "main.go")
	if err := os.WriteFile(file, []byte("package main // saved\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: call("Read", map[string]any{"file_path": file})},
		{ExpectContains: "unsaved", ToolCalls: call("Edit", map[string]any{"file_path": file, "old_string": "unsaved", "new_string": "edited"})},
		{Text: "done"},
	}})
	r := newRig(t, cwd, t.TempDir(), p, "acceptEdits")
	r.cl.buffers = map[string]string{file: "package main // unsaved\n"}
	if _, err := r.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		t.Fatal(err)
	}
	s := r.newSession()
	if got := r.prompt(s.SessionId, "edit main.go"); got != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason = %s", got)
	}
	if got := r.cl.buffers[file]; got != "package main // edited\n" {
		t.Fatalf("buffer = %q", got)
	}
	if data, _ := os.ReadFile(file); string(data) != "package main // saved\n" {
		t.Fatalf("disk = %q: the editor saves, not ouro", data)
	}
}

// The client's MCP servers join the session: the model calls a tool of one.
func TestClientMCPServersJoinTheSession(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, "../mcpclient/testdata/server").CombinedOutput(); err != nil {
		t.Fatalf("build the MCP test server: %v\n%s", err, out)
	}
	cwd := t.TempDir()
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: call("mcp__editor__echo", map[string]any{"text": "from the editor's server"})},
		{ExpectContains: "echo: from the editor's server", Text: "it answered"},
	}})
	r := newRig(t, cwd, t.TempDir(), p, "bypassPermissions")
	r.init()
	s, err := r.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "editor", Command: bin, Args: []string{}, Env: []sdk.EnvVariable{}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.prompt(s.SessionId, "ask the server"); got != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason = %s", got)
	}
}

// session/cancel while a permission request is open ends the turn cancelled, and the
// call is not run.
func TestCancelWhileAsking(t *testing.T) {
	cwd := t.TempDir()
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: call("Bash", map[string]any{"command": "touch never.txt"})},
		{Text: "never"},
	}})
	r := newRig(t, cwd, t.TempDir(), p, "")
	r.init()
	s := r.newSession()
	asked := make(chan struct{})
	r.cl.on(nil, func() {
		close(asked)
		r.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: s.SessionId})
	})
	if got := r.prompt(s.SessionId, "touch it"); got != sdk.StopReasonCancelled {
		t.Fatalf("stop reason = %s, want cancelled", got)
	}
	<-asked
	if _, err := os.Stat(filepath.Join(cwd, "never.txt")); err == nil {
		t.Fatal("the cancelled call ran")
	}
}

// A question the model asks (AskUserQuestion) is shown, and the turn ends for the user
// to answer in the next prompt.
func TestQuestionEndsTheTurnShown(t *testing.T) {
	q := map[string]any{"questions": []any{map[string]any{"question": "Which database should it use?", "header": "Database", "multiSelect": false,
		"options": []any{map[string]any{"label": "SQLite", "description": "embedded"}, map[string]any{"label": "Postgres", "description": "a server"}}}}}
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: call("AskUserQuestion", q)},
		{ExpectContains: "SQLite", Text: "SQLite it is"},
	}})
	r := newRig(t, t.TempDir(), t.TempDir(), p, "")
	r.init()
	s := r.newSession()
	if got := r.prompt(s.SessionId, "set up storage"); got != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason = %s", got)
	}
	var text strings.Builder
	for _, n := range r.cl.all() {
		if u := n.Update.AgentMessageChunk; u != nil {
			text.WriteString(u.Content.Text.Text)
		}
	}
	if !strings.Contains(text.String(), "Which database should it use?") {
		t.Fatalf("the question was not shown: %q", text.String())
	}
	if got := r.prompt(s.SessionId, "SQLite"); got != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason of the answer = %s", got)
	}
}

// session/close ends a running turn first, then the session: a prompt to it afterwards
// is an error naming it.
func TestCloseSessionEndsItsTurn(t *testing.T) {
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: call("Bash", map[string]any{"command": "sleep 60"})},
		{Text: "never"},
	}})
	r := newRig(t, t.TempDir(), t.TempDir(), p, "bypassPermissions")
	r.init()
	s := r.newSession()
	closed := make(chan error, 1)
	r.cl.on(func(n sdk.SessionNotification) {
		if u := n.Update.ToolCallUpdate; u != nil && u.Status != nil && *u.Status == sdk.ToolCallStatusInProgress {
			go func() {
				_, err := r.conn.CloseSession(context.Background(), sdk.CloseSessionRequest{SessionId: s.SessionId})
				closed <- err
			}()
		}
	}, nil)
	if got := r.prompt(s.SessionId, "wait"); got != sdk.StopReasonCancelled {
		t.Fatalf("stop reason = %s, want cancelled", got)
	}
	if err := <-closed; err != nil {
		t.Fatalf("session/close: %v", err)
	}
	_, err := r.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("again")}})
	if err == nil || !strings.Contains(err.Error(), "no open session") {
		t.Fatalf("prompt after close: %v", err)
	}
}

// A call is shown before the gate judges it: the old text of a Write's diff comes only
// from files the session may read, never from outside the workspace.
func TestWriteDiffShowsNothingOutsideTheWorkspace(t *testing.T) {
	cwd, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(cwd, "in.txt")
	if err := os.WriteFile(inside, []byte("old inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: call("Write", map[string]any{"file_path": secret, "content": "x"})},
		{ToolCalls: call("Write", map[string]any{"file_path": inside, "content": "new inside"})},
		{Text: "done"},
	}})
	r := newRig(t, cwd, t.TempDir(), p, "")
	r.cl.answers = []string{"reject", "reject"}
	r.init()
	s := r.newSession()
	r.prompt(s.SessionId, "write both")
	var olds []string
	for _, n := range r.cl.all() {
		if u := n.Update.ToolCall; u != nil {
			for _, c := range u.Content {
				if c.Diff != nil {
					old := "<none>"
					if c.Diff.OldText != nil {
						old = *c.Diff.OldText
					}
					olds = append(olds, old)
				}
			}
		}
	}
	if strings.Join(olds, "|") != "<none>|old inside" {
		t.Fatalf("old texts shown = %q", olds)
	}
}
