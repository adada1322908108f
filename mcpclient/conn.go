package mcpclient

import (
	"context"
	"fmt"
	"github.com/ouroagent/ouro/internal/credenv"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/mcpauth"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/sandbox"
)

// conn is one live connection: the session and, for stdio, the server's process.
type conn struct {
	cs   *mcp.ClientSession
	proc *process
	// done releases what the connection holds besides (an OAuth redirect listener).
	done func()
}

// close ends the session and makes sure nothing of the server's process tree is left.
func (c *conn) close() {
	if c == nil {
		return
	}
	done := make(chan struct{})
	go func() { _ = c.cs.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(closeGrace):
	}
	c.proc.kill()
	if c.done != nil {
		c.done()
	}
}

// closeGrace is how long a server may take to exit once its stdin is closed, before its
// process group is signalled.
const closeGrace = 500 * time.Millisecond

// process is a stdio server's process group (a Job Object on Windows).
type process struct {
	group      group
	supervised bool
	once       sync.Once
}

func (p *process) kill() {
	if p == nil {
		return
	}
	p.once.Do(func() { p.group.kill(p.supervised) })
}

// dial starts (or reaches) srv and completes the MCP handshake within ctx.
func (m *Manager) dial(ctx context.Context, s *server) (*conn, error) {
	copts := &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			m.startRelist(s)
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			m.startRelist(s)
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			m.progress(req.Params)
		},
		Capabilities: &mcp.ClientCapabilities{},
	}
	if m.opts.Elicit != nil {
		copts.ElicitationHandler = m.elicitHandler(s)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "ouro", Version: m.opts.Version}, copts)
	var t mcp.Transport
	var proc *process
	var done func()
	cfg := s.cfg
	switch cfg.Type {
	case mcpconf.TypeStdio:
		cmd, supervised, err := m.command(cfg)
		if err != nil {
			return nil, err
		}
		logw, err := m.openLog(cfg.Name)
		if err != nil {
			return nil, err
		}
		cmd.Stderr = logw
		t = &startNotify{CommandTransport: mcp.CommandTransport{Command: cmd, TerminateDuration: closeGrace}, started: func(p *os.Process) error {
			g, err := startGroup(p)
			proc = &process{group: g, supervised: supervised}
			return err
		}}
	case mcpconf.TypeHTTP:
		st := &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient(cfg.Headers), MaxRetries: 1}
		h, release, err := m.oauth(cfg)
		if err != nil {
			return nil, err
		}
		st.OAuthHandler, done = h, release
		t = st
	case mcpconf.TypeSSE:
		t = &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient(cfg.Headers)}
	case mcpconf.TypeSDK:
		if m.opts.SDK == nil {
			return nil, fmt.Errorf("a server of type \"sdk\" lives in the program that drives ouro through the Claude Agent SDK, and no SDK is connected (it needs --input-format stream-json from the SDK)")
		}
		t = m.opts.SDK(cfg.Name)
	default:
		return nil, fmt.Errorf("unknown transport %q", cfg.Type)
	}
	// The connection lives as long as the manager (an SSE stream is tied to the context
	// it is opened with); only the handshake is bounded by ctx.
	cs, err := client.Connect(ctx, lifetime{Transport: t, ctx: m.ctx}, nil)
	if err != nil {
		proc.kill()
		if done != nil {
			done()
		}
		return nil, err
	}
	return &conn{cs: cs, proc: proc, done: done}, nil
}

// oauth is a streamable HTTP server's OAuth handler: none when the configuration sends
// its own Authorization header or keeps no tokens; the login flow when Options.Login is
// set; else the saved token, and needs-auth when the server wants more.
func (m *Manager) oauth(cfg mcpconf.Server) (auth.OAuthHandler, func(), error) {
	for k := range cfg.Headers {
		if strings.EqualFold(k, "Authorization") {
			return nil, nil, nil
		}
	}
	if m.opts.AuthDir == "" {
		return nil, nil, nil
	}
	store := mcpauth.Store{Dir: m.opts.AuthDir}
	if m.opts.Login != nil {
		var c mcpauth.Client
		if o := cfg.OAuth; o != nil {
			c = mcpauth.Client{ID: o.ClientID, Secret: o.ClientSecret, MetadataURL: o.ClientMetadataURL, CallbackPort: o.CallbackPort}
		}
		return mcpauth.Login(store, cfg.URL, c, m.opts.Login, nil)
	}
	var warn func(error)
	if m.opts.Warn != nil {
		warn = func(err error) {
			m.opts.Warn(fmt.Sprintf("MCP server at %s: the refreshed OAuth token could not be saved (%v); this session goes on with it, the next one may need `ouro mcp login` again", cfg.URL, err))
		}
	}
	h, err := mcpauth.Session(store, cfg.URL, warn)
	if err != nil {
		return nil, nil, fmt.Errorf("its saved OAuth login: %w", err)
	}
	return h, nil, nil
}

// lifetime opens a transport's connection with the manager's context.
type lifetime struct {
	mcp.Transport
	ctx context.Context
}

func (l lifetime) Connect(context.Context) (mcp.Connection, error) { return l.Transport.Connect(l.ctx) }

// startNotify is the SDK's command transport that also reports the process it started
// (which on Windows joins its job here, before it runs).
type startNotify struct {
	mcp.CommandTransport
	started func(p *os.Process) error
}

func (t *startNotify) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.CommandTransport.Connect(ctx)
	if t.Command.Process != nil {
		if serr := t.started(t.Command.Process); serr != nil && err == nil {
			_ = c.Close()
			c, err = nil, serr
		}
	}
	return c, err
}

// command builds a stdio server's process: in its own process group, with its own
// environment entries after ouro's, in the project folder. Under the launcher (when the
// binary has one) the whole tree dies with ouro, even on SIGKILL; without it the server
// itself still does (Pdeathsig) on Linux. On Windows the server's job does that.
func (m *Manager) command(cfg mcpconf.Server) (*exec.Cmd, bool, error) {
	path, err := exec.LookPath(cfg.Command)
	if err != nil {
		return nil, false, fmt.Errorf("cannot start %q: %v", cfg.Command, err)
	}
	var cmd *exec.Cmd
	supervised := false
	if m.opts.Supervise {
		if c, err := sandbox.Supervised(context.Background(), path, cfg.Args...); err == nil {
			cmd, supervised = c, true
		}
	}
	if cmd == nil {
		cmd = exec.Command(path, cfg.Args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		dieWithOuro(cmd.SysProcAttr)
	}
	ownGroup(cmd)
	cmd.Dir = m.opts.CWD
	// ouro's credentials are not the server's: only those its own "env" names reach it.
	cmd.Env = credenv.Strip(append(os.Environ(), m.opts.Env...))
	keys := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+cfg.Env[k])
	}
	return cmd, supervised, nil
}

// maxLog bounds what one server may write to its log in one session.
const maxLog = 10 << 20

func logPathOf(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, mcpconf.SafeName(name)+".log")
}

// openLog is where a stdio server's stderr goes: a file of the project's state, never the
// terminal (a chatty server must not draw over the REPL). Without a log folder it is
// discarded.
func (m *Manager) openLog(name string) (io.Writer, error) {
	p := logPathOf(m.opts.LogDir, name)
	if p == "" {
		return io.Discard, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("log folder: %w", err)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	m.mu.Lock()
	m.files = append(m.files, f)
	m.mu.Unlock()
	return &capped{w: f, left: maxLog}, nil
}

// capped writes up to left bytes, then drops the rest (saying so once).
type capped struct {
	mu   sync.Mutex
	w    io.Writer
	left int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left <= 0 {
		return len(p), nil
	}
	n := min(len(p), c.left)
	_, err := c.w.Write(p[:n])
	c.left -= n
	if c.left <= 0 {
		_, _ = io.WriteString(c.w, "\n[ouro: log limit reached; the rest of this server's stderr is dropped]\n")
	}
	return len(p), err
}

// httpClient sends headers with every request.
func httpClient(headers map[string]string) *http.Client {
	if len(headers) == 0 {
		return nil
	}
	return &http.Client{Transport: headerTransport{headers: headers, base: http.DefaultTransport}}
}

type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}
