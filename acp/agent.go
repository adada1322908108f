// Package acp serves ouro to editors over the Agent Client Protocol
// (https://agentclientprotocol.com): JSON-RPC on standard input and output, spoken
// through github.com/coder/acp-go-sdk. Each ACP session is one harness.Session, opened
// as `ouro -p` opens one, with the client's working directory and MCP servers; what the
// session does reaches the editor as session/update notifications (update.go), what
// the permission policy asks about as session/request_permission (approve.go), and a
// loaded session replays its conversation (replay.go). The agent loop knows nothing of
// any of this: the adapter hangs on the session's observers and approver.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/permission"
)

// Config is what `ouro acp` hands the adapter.
type Config struct {
	// Options returns the options every session starts from (the command's flags); the
	// adapter fills in the directory, the MCP servers, the resume and the UI.
	Options func() harness.Options
	// Expand turns a prompt "/name args" naming a skill into the skill's text, as -p
	// does (nil: prompts are sent as they are).
	Expand func(ctx context.Context, sess *harness.Session, blocks []llm.Block) ([]llm.Block, error)
	// Version is ouro's, for initialize's agentInfo.
	Version string
	// Warn receives diagnostics (standard error; never standard output, which is the
	// protocol's).
	Warn io.Writer
}

// Agent is ouro's side of one ACP connection: it answers the client's requests and
// holds the sessions the client opened.
type Agent struct {
	cfg  Config
	conn *sdk.AgentSideConnection

	mu       sync.Mutex
	client   sdk.ClientCapabilities
	sessions map[string]*session
	tap      *tap
}

// Serve speaks ACP on in and out until the client disconnects or ctx ends, then closes
// every session it opened (their transcripts stay, for session/load).
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	a := New(cfg)
	a.Connect(ctx, in, out)
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	return a.Close()
}

// New makes an agent; Connect attaches it to a client.
func New(cfg Config) *Agent {
	if cfg.Warn == nil {
		cfg.Warn = os.Stderr
	}
	if cfg.Options == nil {
		cfg.Options = func() harness.Options { return harness.Options{} }
	}
	return &Agent{cfg: cfg, sessions: map[string]*session{}}
}

// Connect speaks ACP with the client on the other ends of in and out. When in ends,
// the connection ends once every request read has been answered (or ctx ends).
func (a *Agent) Connect(ctx context.Context, in io.Reader, out io.Writer) *sdk.AgentSideConnection {
	a.tap = newTap()
	a.conn = sdk.NewAgentSideConnection(a, a.tap.output(out), a.tap.input(ctx, in))
	a.conn.SetLogger(slog.New(slog.NewTextHandler(a.cfg.Warn, &slog.HandlerOptions{Level: slog.LevelWarn})))
	close(a.tap.start) // the handlers may use a.conn from here on
	return a.conn
}

// Close closes every open session.
func (a *Agent) Close() error {
	a.mu.Lock()
	all := a.sessions
	a.sessions = map[string]*session{}
	a.mu.Unlock()
	var errs []error
	for _, s := range all {
		s.cancel()
		s.turn.Lock() // the turn has returned: the session is closed under no one
		errs = append(errs, s.close())
		s.turn.Unlock()
	}
	return errors.Join(errs...)
}

var _ sdk.Agent = (*Agent)(nil)
var _ sdk.AgentLoader = (*Agent)(nil)

// Initialize says what ouro offers: loading sessions, images and embedded context in
// prompts, MCP servers over stdio and HTTP.
func (a *Agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "ouro", Title: sdk.Ptr("ouro"), Version: a.cfg.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true},
			// session/close, and the additional directories a session may work in (--add-dir).
			SessionCapabilities: sdk.SessionCapabilities{Close: &sdk.SessionCloseCapabilities{},
				AdditionalDirectories: &sdk.SessionAdditionalDirectoriesCapabilities{}},
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate has nothing to do: ouro reads its model credentials from the
// environment and settings, and advertises no authentication method.
func (a *Agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// NewSession opens a session in the client's directory with the client's MCP servers
// joining those of ouro's own configuration.
func (a *Agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	s, err := a.open(p.Cwd, p.McpServers, p.AdditionalDirectories, "")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	a.tap.afterNew(s.id, func() { s.announce(context.WithoutCancel(ctx)) })
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.id), Modes: s.modes()}, nil
}

// LoadSession resumes an ouro session (as --resume does) and replays its conversation
// to the client before answering.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	a.mu.Lock()
	_, open := a.sessions[string(p.SessionId)]
	a.mu.Unlock()
	if open {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s is already open on this connection", p.SessionId)})
	}
	s, err := a.open(p.Cwd, p.McpServers, p.AdditionalDirectories, string(p.SessionId))
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	s.replay(ctx)
	s.announce(ctx)
	return sdk.LoadSessionResponse{Modes: s.modes()}, nil
}

// open builds the harness options for one session and opens it.
func (a *Agent) open(cwd string, servers []sdk.McpServer, extra []string, resume string) (*session, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd must be an absolute path, got %q", cwd)})
	}
	opts := a.cfg.Options()
	opts.Dirs.CWD = cwd
	opts.Dirs.Add = append(opts.Dirs.Add, extra...)
	if resume != "" {
		opts.Resume = harness.Resume{ID: resume}
	}
	cfg, err := mcpConfig(servers)
	if err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if cfg != "" {
		opts.MCP.Configs = append(opts.MCP.Configs, cfg)
	}
	a.mu.Lock()
	fs := a.client.Fs
	a.mu.Unlock()
	s := &session{a: a, calls: map[string]*callView{}}
	if fs.ReadTextFile || fs.WriteTextFile {
		opts.UI.Editor = &editorFiles{s: s, read: fs.ReadTextFile, write: fs.WriteTextFile}
	}
	opts.UI.Warn = a.cfg.Warn
	opts.UI.Observers = append(opts.UI.Observers, s.observe)
	opts.UI.PromptApprover = s
	opts.UI.OnTodo = s.plan
	opts.UI.ShowUser = func(msg string) { s.say(context.Background(), msg) }
	h, err := harness.Open(opts)
	if err != nil {
		if resume != "" {
			return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	s.mu.Lock()
	// A loaded session keeps the ID the client knows, even when ouro continues it in a
	// fork (another ouro is writing its transcript).
	s.h, s.id, s.mode = h, h.ID(), h.Policy().Mode()
	if resume != "" {
		s.id = resume
	}
	s.mu.Unlock()
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return s, nil
}

func (a *Agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no open session %s: open it with session/new or session/load", id)})
	}
	return s, nil
}

// Prompt runs one turn: the model, its tool calls, until it stops. The stop reason
// follows the run's outcome; a cancelled turn (session/cancel) ends "cancelled".
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	blocks, err := promptBlocks(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return s.prompt(ctx, blocks)
}

// Cancel ends the session's running turn; the SDK has already cancelled the prompt's
// context, this makes sure a turn started by other means stops too.
func (a *Agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	if s, err := a.session(p.SessionId); err == nil {
		s.cancel()
	}
	return nil
}

// SetSessionMode switches the session's permission mode.
func (a *Agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	m, err := permission.ParseMode(string(p.ModeId))
	if err == nil {
		err = s.h.Policy().SetMode(m)
	}
	if err != nil {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s.modeChanged(ctx)
	return sdk.SetSessionModeResponse{}, nil
}

// CloseSession closes a session (its transcript stays for session/load).
func (a *Agent) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	a.mu.Lock()
	delete(a.sessions, s.id)
	a.mu.Unlock()
	s.cancel()
	s.turn.Lock()
	defer s.turn.Unlock()
	if err := s.close(); err != nil {
		return sdk.CloseSessionResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions is not offered (no sessionCapabilities.list): editors list what they
// opened themselves, and `ouro sessions` lists the rest.
func (a *Agent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// ResumeSession (resuming without a replay) is not offered; session/load resumes.
func (a *Agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption is not offered: ouro advertises no config options.
func (a *Agent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// stopReason maps a run's outcome to ACP's.
func stopReason(o agent.Outcome) (sdk.StopReason, error) {
	switch o.Status {
	case agent.StatusCompleted, agent.StatusNeedsInput:
		return sdk.StopReasonEndTurn, nil
	case agent.StatusInterrupted:
		return sdk.StopReasonCancelled, nil
	case agent.StatusRefused:
		return sdk.StopReasonRefusal, nil
	case agent.StatusBudgetExhausted:
		return sdk.StopReasonMaxTurnRequests, nil
	}
	return "", sdk.NewInternalError(map[string]any{"error": "the turn failed: " + o.Reason})
}
