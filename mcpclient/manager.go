// Package mcpclient connects a session to the MCP servers it is configured with, on the
// official Go SDK: each server starts in the background, in parallel, and its tools join
// the session's tool pool as mcp__<server>__<tool> once it is ready. A server that does
// not start, answers garbage or dies is reported in its status and never holds up the
// session. Nothing runs unless a server is configured.
package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/mcpauth"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/tool"
)

// States a server goes through (with mcpconf's needs-approval and disabled for those that
// never start). The names are Claude Code's, as the stream-json init event shows them.
const (
	StatePending   = "pending"
	StateConnected = "connected"
	StateFailed    = "failed"
	// StateNeedsAuth is a remote server that wants an OAuth login (`ouro mcp login`).
	StateNeedsAuth = "needs-auth"
)

// Options configure the servers' connections.
type Options struct {
	CWD     string // where stdio servers run
	LogDir  string // where their stderr goes (one file per server); "" discards it
	Version string // ouro's version, in the handshake
	// StartTimeout bounds a server's start and handshake (MCP_TIMEOUT, default 30 s);
	// ToolTimeout bounds each call (MCP_TOOL_TIMEOUT; 0: only the run's own limits).
	StartTimeout, ToolTimeout time.Duration
	// Supervise runs stdio servers under the sandbox launcher, so their whole process
	// tree dies with ouro (the binary must call sandbox.MaybeRunLauncher).
	Supervise bool
	// Env is added to every stdio server's environment (after ouro's own).
	Env []string
	// Trusted says whether a server's read-only annotations may be believed.
	Trusted func(server string) bool
	// Elicit answers a server's request for the user's input (a form); nil: ouro
	// offers no elicitation and servers must not ask. OnElicit, when set, learns of
	// every request and its answer (stream-json's event, the REPL's note).
	Elicit   func(context.Context, *Elicitation) Answer
	OnElicit func(*Elicitation, Answer)
	// AuthDir keeps remote servers' OAuth tokens ("": none are kept, none are sent).
	AuthDir string
	// Login, when set, logs in to a streamable HTTP server that asks for authorization:
	// it receives the URL the user must open. Without it a session never starts a login;
	// such a server's state is needs-auth.
	Login func(authURL string) error
	// SDK reaches a server of type "sdk" (in the Agent SDK's process, over the control
	// protocol); nil when no SDK drives ouro, and such servers fail to start.
	SDK func(server string) mcp.Transport
	// MaxResultChars, when set (MAX_MCP_OUTPUT_TOKENS), is how many characters of a tool's
	// result the model sees in place of the registry's budget; past it the whole result
	// is saved to a file the result names.
	MaxResultChars int
	// Warn, when set, receives problems the user should hear of that fail nothing now
	// (a refreshed OAuth token that could not be saved for the next session).
	Warn func(string)
}

// TimeoutsFromEnv reads MCP_TIMEOUT and MCP_TOOL_TIMEOUT (milliseconds, as in Claude
// Code) into o.
func (o *Options) TimeoutsFromEnv(getenv func(string) string) {
	if ms, err := strconv.Atoi(getenv("MCP_TIMEOUT")); err == nil && ms > 0 {
		o.StartTimeout = time.Duration(ms) * time.Millisecond
	}
	if ms, err := strconv.Atoi(getenv("MCP_TOOL_TIMEOUT")); err == nil && ms > 0 {
		o.ToolTimeout = time.Duration(ms) * time.Millisecond
	}
}

// DefaultStartTimeout bounds a server's start when MCP_TIMEOUT does not.
const DefaultStartTimeout = 30 * time.Second

// Manager holds the session's servers.
type Manager struct {
	opts    Options
	servers []*server
	// ctx ends when the manager closes, cutting short the starts still under way.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	cond   *sync.Cond
	files  []*os.File
	closed bool
	// relisting counts the re-listings under way.
	relisting int

	gen      atomic.Uint64 // advanced by every change of any server's state or tools
	token    atomic.Uint64
	progress func(*mcp.ProgressNotificationParams)
	calls    sync.Map // progress token → *tool.Exec
	wg       sync.WaitGroup
}

type server struct {
	cfg mcpconf.Server
	// guarded by Manager.mu
	state        string
	err          string
	conn         *conn
	tools        []*mcp.Tool
	prompts      []*mcp.Prompt
	resources    bool
	instructions string
	logPath      string
	refused      []string
	started      time.Time
}

// New prepares the servers of cfg (those that may not start keep their state); Start
// starts them.
func New(servers []mcpconf.Server, o Options) *Manager {
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	m := &Manager{opts: o}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.cond = sync.NewCond(&m.mu)
	m.progress = m.onProgress
	for _, c := range servers {
		s := &server{cfg: c, state: StatePending}
		if c.Type == mcpconf.TypeStdio && c.Runnable() {
			s.logPath = logPathOf(o.LogDir, c.Name)
		}
		if !c.Runnable() {
			s.state, s.err = c.State, c.Reason
		}
		m.servers = append(m.servers, s)
	}
	return m
}

// Start connects every runnable server in the background; it returns at once.
func (m *Manager) Start() {
	for _, s := range m.servers {
		if s.state != StatePending {
			continue
		}
		s.started = time.Now()
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.connect(s)
		}()
	}
}

func (m *Manager) connect(s *server) {
	ctx, cancel := context.WithTimeout(m.ctx, m.opts.StartTimeout)
	defer cancel()
	c, err := m.dial(ctx, s)
	if err == nil {
		err = m.list(ctx, s, c)
		if err != nil {
			c.close()
		}
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		if err == nil {
			c.close()
		}
		return
	}
	defer m.mu.Unlock()
	var nl *mcpauth.NeedsLoginError
	switch {
	case errors.As(err, &nl):
		s.state, s.err = StateNeedsAuth, fmt.Sprintf("needs an OAuth login: run `ouro mcp login %s` (or /mcp login %s in the REPL)", s.cfg.Name, s.cfg.Name)
	case err != nil:
		s.state, s.err = StateFailed, describe(err, ctx, m.opts.StartTimeout)
	default:
		s.state, s.conn = StateConnected, c
		if r := c.cs.InitializeResult(); r != nil {
			s.instructions = r.Instructions
		}
		go m.watch(s, c)
	}
	m.changed()
}

// describe turns a start failure into words for the status.
func describe(err error, ctx context.Context, limit time.Duration) string {
	if ctx.Err() != nil {
		return fmt.Sprintf("did not complete the MCP handshake within %s (MCP_TIMEOUT); see its log", limit)
	}
	msg := err.Error()
	if errors.Is(err, mcp.ErrConnectionClosed) || strings.Contains(msg, "EOF") {
		msg = "the server closed the connection during the handshake (it exited, or wrote something that is not MCP on stdout): " + msg
	}
	return msg
}

// watch marks the server failed when its connection ends while ouro still uses it.
func (m *Manager) watch(s *server, c *conn) {
	err := c.cs.Wait()
	why := "the server disconnected"
	if err != nil {
		why += ": " + err.Error()
	}
	m.lost(s, c.cs, why)
}

// lost marks s failed, for why, if cs is still its connection: its tools leave the
// session at once (a call that saw the connection die must not leave the next call to
// find it dead too) and what is left of its process is killed.
func (m *Manager) lost(s *server, cs *mcp.ClientSession, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || s.conn == nil || s.conn.cs != cs {
		return
	}
	c := s.conn
	s.state, s.err, s.conn, s.tools, s.prompts = StateFailed, why, nil, nil, nil
	go c.close()
	m.changed()
}

// list reads the server's tools and prompts.
func (m *Manager) list(ctx context.Context, s *server, c *conn) error {
	var tools []*mcp.Tool
	caps := &mcp.ServerCapabilities{}
	if r := c.cs.InitializeResult(); r != nil && r.Capabilities != nil {
		caps = r.Capabilities
	}
	if caps.Tools != nil {
		for t, err := range c.cs.Tools(ctx, nil) {
			if err != nil {
				return fmt.Errorf("listing its tools failed: %w", err)
			}
			tools = append(tools, t)
		}
	}
	var prompts []*mcp.Prompt
	if caps.Prompts != nil {
		for p, err := range c.cs.Prompts(ctx, nil) {
			if err != nil {
				break // prompts are extra: a server that fails to list them keeps its tools
			}
			prompts = append(prompts, p)
		}
	}
	m.mu.Lock()
	s.tools, s.prompts, s.resources = tools, prompts, caps.Resources != nil
	m.mu.Unlock()
	return nil
}

// startRelist counts a re-listing as under way (Settle waits for it) and starts it.
func (m *Manager) startRelist(s *server) {
	m.mu.Lock()
	m.relisting++
	m.mu.Unlock()
	go func() {
		m.relist(s)
		m.mu.Lock()
		m.relisting--
		m.cond.Broadcast()
		m.mu.Unlock()
	}()
}

// Settle waits, at most d, for the re-listings under way (a server said its tools
// changed) to finish, so the next request offers the new tools.
func (m *Manager) Settle(ctx context.Context, d time.Duration) {
	m.waitFor(ctx, d, func() bool { return m.relisting > 0 })
}

// relist reads a server's lists again after it said they changed.
func (m *Manager) relist(s *server) {
	m.mu.Lock()
	c := s.conn
	m.mu.Unlock()
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(m.ctx, m.opts.StartTimeout)
	defer cancel()
	if err := m.list(ctx, s, c); err != nil {
		m.mu.Lock()
		s.err = "re-listing after list_changed: " + err.Error()
		m.mu.Unlock()
	}
	m.mu.Lock()
	m.changed()
	m.mu.Unlock()
}

// changed records a change; m.mu is held.
func (m *Manager) changed() {
	m.gen.Add(1)
	m.cond.Broadcast()
}

// Gen changes whenever a server's state or lists change.
func (m *Manager) Gen() uint64 { return m.gen.Load() }

// Wait blocks until no server is pending, d has passed or ctx ends, whichever is first.
func (m *Manager) Wait(ctx context.Context, d time.Duration) {
	m.waitFor(ctx, d, m.pendingLocked)
}

// waitFor waits while busy() (called with m.mu held) for at most d.
func (m *Manager) waitFor(ctx context.Context, d time.Duration, busy func() bool) {
	deadline := time.Now().Add(d)
	stop := context.AfterFunc(ctx, func() {
		m.mu.Lock()
		m.cond.Broadcast()
		m.mu.Unlock()
	})
	defer stop()
	t := time.AfterFunc(d, func() {
		m.mu.Lock()
		m.cond.Broadcast()
		m.mu.Unlock()
	})
	defer t.Stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	for busy() && time.Now().Before(deadline) && ctx.Err() == nil && !m.closed {
		m.cond.Wait()
	}
}

func (m *Manager) pendingLocked() bool {
	for _, s := range m.servers {
		if s.state == StatePending {
			return true
		}
	}
	return false
}

// Status is one server as the user sees it (/mcp, `ouro mcp list`, stream-json).
type Status struct {
	Name  string `json:"name"`
	State string `json:"status"`
	Scope string `json:"scope,omitempty"`
	Type  string `json:"type,omitempty"`
	// Error says why the server is not connected, or what went wrong since.
	Error string `json:"error,omitempty"`
	// Tools are the names the model sees; Refused the tools left out, and why.
	Tools   []string `json:"tools,omitempty"`
	Refused []string `json:"refused,omitempty"`
	Prompts []string `json:"prompts,omitempty"`
	Log     string   `json:"log,omitempty"`
}

// Status lists every configured server.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		st := Status{Name: s.cfg.Name, State: s.state, Scope: s.cfg.Scope, Type: s.cfg.Type, Error: s.err,
			Refused: append([]string(nil), s.refused...), Log: s.logPath}
		for _, t := range s.tools {
			st.Tools = append(st.Tools, ToolName(s.cfg.Name, t.Name))
		}
		for _, p := range s.prompts {
			st.Prompts = append(st.Prompts, ToolName(s.cfg.Name, p.Name))
		}
		out = append(out, st)
	}
	return out
}

// Tools are the tools of every connected server, in server order.
func (m *Manager) Tools() []tool.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []tool.Tool
	for _, s := range m.servers {
		if s.state != StateConnected {
			continue
		}
		for _, t := range s.tools {
			out = append(out, newTool(m, s, t))
		}
	}
	return out
}

// Refuse records the tools of server that could not join the pool, and why.
func (m *Manager) Refuse(server string, why []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		if s.cfg.Name == server {
			s.refused = why
		}
	}
}

// Instructions are the connected servers' instructions, each cut to perServer
// characters and all to total, as a system prompt section ("" when there are none).
func (m *Manager) Instructions(perServer, total int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var sb strings.Builder
	for _, s := range m.servers {
		in := strings.TrimSpace(s.instructions)
		if s.state != StateConnected || in == "" {
			continue
		}
		if len(in) > perServer {
			in = textcut.Bytes(in, perServer, "") + "\n[… cut: the server's instructions are longer]"
		}
		block := "## " + s.cfg.Name + "\n" + in + "\n\n"
		if sb.Len()+len(block) > total {
			break
		}
		sb.WriteString(block)
	}
	if sb.Len() == 0 {
		return ""
	}
	return "# MCP Server Instructions\n\nThe following MCP servers have provided instructions for how to use their tools and resources:\n\n" + strings.TrimSpace(sb.String())
}

// session returns the live session of server name.
func (m *Manager) session(name string) (*mcp.ClientSession, *server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		if s.cfg.Name != name {
			continue
		}
		if s.state != StateConnected || s.conn == nil {
			why := s.err
			if why == "" {
				why = s.state
			}
			return nil, s, fmt.Errorf("MCP server %q is not connected (%s)", name, why)
		}
		return s.conn.cs, s, nil
	}
	return nil, nil, fmt.Errorf("there is no MCP server %q", name)
}

// Close disconnects every server and kills what is left of their processes.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	m.cancel()
	var conns []*conn
	for _, s := range m.servers {
		if s.conn != nil {
			conns = append(conns, s.conn)
			s.conn = nil
		}
	}
	m.cond.Broadcast()
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); c.close() }()
	}
	wg.Wait()
	m.wg.Wait() // the starts under way end once the context is cancelled
	m.mu.Lock()
	for _, f := range m.files {
		f.Close()
	}
	m.mu.Unlock()
}
