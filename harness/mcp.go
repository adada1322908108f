package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/grant"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mcpclient"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

// MCP says which MCP servers the session uses besides those of its configuration files.
type MCP struct {
	// Configs are --mcp-config values: files or inline JSON, each {"mcpServers": {...}}.
	Configs []string
	// Strict is --strict-mcp-config: only the Configs' servers.
	Strict bool
	// Wait is how long the first model request waits for servers still starting (their
	// tools join later requests once they are ready); 0 → DefaultMCPWait, <0 none.
	Wait time.Duration
	// Approve asks the user whether a server of the project's .mcp.json, not approved
	// yet, may run (what says what it runs); a yes is remembered for the project. nil
	// means headless: such servers do not start, and their status says why.
	Approve func(name, what string) bool
	// Elicit answers a server's request for the user's input (the REPL's form; a
	// headless run declines); nil offers servers no elicitation. OnElicit learns of each
	// request and its answer.
	Elicit   func(context.Context, *mcpclient.Elicitation) mcpclient.Answer
	OnElicit func(*mcpclient.Elicitation, mcpclient.Answer)
	// SDK reaches the servers of type "sdk" (the Claude Agent SDK's in-process servers);
	// nil when no SDK drives the session.
	SDK func(server string) mcp.Transport
}

// MCPAuthDir is where remote MCP servers' OAuth tokens are kept, under ouro's home
// (never the project): one 0600 file per server URL.
func MCPAuthDir(home string) string { return filepath.Join(home, "mcp-auth") }

// DefaultMCPWait is how long the first request waits for servers still starting.
// OURO_MCP_WAIT (a duration, "500ms") changes it.
const DefaultMCPWait = 5 * time.Second

// mcpSettle bounds the wait for a server re-listing its tools (it said they changed)
// before a request.
const mcpSettle = 2 * time.Second

// Instruction budgets: what each server's instructions and all of them may add to the
// system prompt.
const (
	mcpInstructionsPerServer = 2048
	mcpInstructionsTotal     = 8192
)

// mcpSession joins the session's MCP servers to its tool pool: before each model request
// it brings the registry in line with the servers' current tools (a server that came up,
// re-listed its tools or died), under the same hiding (deny rules) and --tools list as
// the built-in tools.
type mcpSession struct {
	m      *mcpclient.Manager
	reg    *tool.Registry
	hidden func(string) bool
	only   []string
	wait   time.Duration
	warn   io.Writer

	waited bool
	gen    uint64
	added  []string // names this session put in reg
	// readOnlyNames are the added tools a trusted server marks read-only (plan mode may
	// run them); replaced whole by each sync, read by the permission policy.
	readOnlyNames atomic.Pointer[map[string]bool]
	// loaded are the deferred MCP tools the model has loaded (ToolSearch, or a call by
	// name): a re-sync after list_changed keeps them loaded.
	loaded map[string]bool
}

// mcpDeferAtBytes is when MCP tools stop being sent with every request: once the tool
// definitions would pass it, about 5,500 of the first request's 6,000 tokens (at 4
// bytes a token; the system prompt and the prompt take the rest), every MCP tool joins
// deferred, named in ToolSearch's description and loaded on demand, as Claude Code's
// tool search does.
const mcpDeferAtBytes = 22_000

// specBytes is the size of the tool definitions as a request carries them.
func specBytes(specs []llm.ToolSpec) int {
	b, _ := json.Marshal(specs)
	return len(b)
}

// openMCP loads the MCP configuration and, when it names any server, starts the
// runnable ones in the background. No server configured: nil, and nothing runs.
func openMCP(o MCP, d dirs, version string, supervise bool, warn io.Writer) (*mcpSession, error) {
	ledger := grant.Open(d.project)
	opts := mcpconf.Options{CWD: d.cwd, UserHome: d.config, OuroHome: d.home, Flags: o.Configs, Strict: o.Strict,
		// A user settings file an ouro session wrote approves no server until a person
		// reviews it (issue 26, D12), as it grants no permission.
		Unreviewed: func(path string, data []byte) string {
			if ok, why, _ := ledger.Trusted(path, data); !ok {
				return why
			}
			return ""
		}}
	cfg, err := mcpconf.Load(opts)
	if err != nil {
		return nil, err
	}
	if o.Approve != nil && askApproval(cfg, o.Approve, d, warn) {
		if cfg, err = mcpconf.Load(opts); err != nil {
			return nil, err
		}
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(warn, "ouro: mcp: %s\n", w)
	}
	if len(cfg.Servers) == 0 {
		return nil, nil
	}
	mo := mcpclient.Options{CWD: d.cwd, LogDir: filepath.Join(d.project, "mcp-logs"), Version: version,
		Supervise: supervise, Trusted: trustedServers(cfg), Elicit: o.Elicit, OnElicit: o.OnElicit,
		AuthDir: MCPAuthDir(d.home), SDK: o.SDK, Warn: func(msg string) { fmt.Fprintf(warn, "ouro: %s\n", msg) }}
	mo.TimeoutsFromEnv(os.Getenv)
	m := mcpclient.New(cfg.Servers, mo)
	m.Start()
	wait := o.Wait
	if v, err := time.ParseDuration(os.Getenv("OURO_MCP_WAIT")); err == nil && o.Wait == 0 {
		wait = v
	}
	if wait == 0 {
		wait = DefaultMCPWait
	}
	return &mcpSession{m: m, wait: wait, warn: warn}, nil
}

// askApproval asks about each project server awaiting approval and records the yeses;
// it reports whether any was approved.
func askApproval(cfg *mcpconf.Config, approve func(name, what string) bool, d dirs, warn io.Writer) bool {
	var yes []mcpconf.Server
	var names []string
	for _, s := range cfg.Servers {
		if s.State != mcpconf.StateNeedsApproval {
			continue
		}
		what := s.URL
		if s.Type == mcpconf.TypeStdio {
			what = strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
		}
		if s.Changed != "" {
			// Approved before in another shape: this is a new server under an old name.
			what += " (changed since you approved it: " + s.Changed + ")"
		}
		if approve(s.Name, what) {
			yes = append(yes, s)
			names = append(names, s.Name)
		}
	}
	if len(yes) == 0 {
		return false
	}
	if err := mcpconf.Approve(d.config, d.cwd, yes, true); err != nil {
		fmt.Fprintf(warn, "ouro: mcp: the approval could not be saved (%v); it holds for this session only\n", err)
		for i := range cfg.Servers {
			if slices.Contains(names, cfg.Servers[i].Name) {
				cfg.Servers[i].State, cfg.Servers[i].Reason = "", ""
			}
		}
		return false
	}
	return true
}

// trustedServers are those the user configured (local, user, --mcp-config): their tools'
// read-only annotations are believed; a project's .mcp.json servers' are not.
func trustedServers(cfg *mcpconf.Config) func(string) bool {
	trusted := map[string]bool{}
	for _, s := range cfg.Servers {
		trusted[s.Name] = s.Scope != mcpconf.ScopeProject
	}
	return func(name string) bool { return trusted[name] }
}

// part is the BeforeModel seam; reg is the session's final registry.
func (x *mcpSession) part(reg *tool.Registry, hidden func(string) bool, only []string) mechanism.Part {
	x.reg, x.hidden, x.only = reg, hidden, only
	return mechanism.Part{Name: "mcp", Phase: mechanism.PhaseRemote, BeforeModel: []agent.BeforeModel{x}}
}

// BeforeModel waits (once, briefly) for servers still starting, syncs the tools and adds
// the servers' instructions to this request's system prompt.
func (x *mcpSession) BeforeModel(ctx context.Context, t *agent.Turn) error {
	if !x.waited {
		x.waited = true
		if x.wait > 0 {
			x.m.Wait(ctx, x.wait)
		}
	}
	x.m.Settle(ctx, mcpSettle)
	if g := x.m.Gen(); g != x.gen {
		x.gen = g
		x.sync()
		t.Req.Tools = x.reg.Specs()
	}
	if in := x.m.Instructions(mcpInstructionsPerServer, mcpInstructionsTotal); in != "" {
		t.Req.System += "\n\n" + in + "\n"
	}
	return nil
}

// sync replaces the MCP tools in the registry by the servers' current ones. A tool whose
// name another tool already has, or whose schema is broken, is refused and the refusal
// shown in the server's status; a tool a deny rule names is left out silently, as a
// built-in one is.
func (x *mcpSession) sync() {
	if x.loaded == nil {
		x.loaded = map[string]bool{}
	}
	for _, n := range x.added {
		if deferred, loaded := x.reg.Deferred(n); deferred && loaded {
			x.loaded[n] = true
		}
		x.reg.Remove(n)
	}
	x.added = x.added[:0]
	refused := map[string][]string{}
	owner := map[string]string{}
	var join []tool.Tool
	for _, tt := range x.m.Tools() {
		t := tt.(*mcpclient.Tool)
		name, srv := t.Spec().Name, t.Server()
		switch {
		case t.SchemaErr != nil:
			refused[srv] = append(refused[srv], fmt.Sprintf("%s: %v", name, t.SchemaErr))
			continue
		case x.hidden != nil && x.hidden(name):
			continue
		case len(x.only) > 0 && !slices.Contains(x.only, name):
			continue
		}
		if other, dup := owner[name]; dup {
			refused[srv] = append(refused[srv], fmt.Sprintf("%s: the name is taken by a tool of server %q (names are cut to %d characters and made safe)", name, other, mcpclient.MaxToolName))
			continue
		}
		if _, builtin := x.reg.Get(name); builtin {
			refused[srv] = append(refused[srv], fmt.Sprintf("%s: a built-in tool has this name", name))
			continue
		}
		owner[name] = srv
		join = append(join, t)
	}
	var specs []llm.ToolSpec
	for _, t := range join {
		specs = append(specs, t.Spec())
	}
	deferred := len(join) > 0 && specBytes(x.reg.Specs())+specBytes(specs) > mcpDeferAtBytes
	ro := map[string]bool{}
	for _, t := range join {
		t := t.(*mcpclient.Tool)
		add := x.reg.Add
		if deferred {
			add = x.reg.AddDeferred
		}
		if err := add(t); err != nil {
			refused[t.Server()] = append(refused[t.Server()], err.Error())
			continue
		}
		x.added = append(x.added, t.Spec().Name)
		if t.ReadOnly() {
			ro[t.Spec().Name] = true
		}
	}
	if deferred {
		var again []string
		for n := range x.loaded {
			again = append(again, n)
		}
		x.reg.Load(again...)
		if _, has := x.reg.Get(tool.ToolSearchName); !has {
			_ = x.reg.Add(tool.NewSearch(x.reg))
		}
	}
	x.readOnlyNames.Store(&ro)
	for _, st := range x.m.Status() {
		x.m.Refuse(st.Name, refused[st.Name])
	}
}

// readOnly reports whether name is an MCP tool that only reads, by the annotation of a
// server the user trusts (their own configuration, not a project's .mcp.json).
func (x *mcpSession) readOnly(name string) bool {
	m := x.readOnlyNames.Load()
	return m != nil && (*m)[name]
}

// close disconnects the servers.
func (x *mcpSession) close() {
	if x != nil {
		x.m.Close()
	}
}

// MCP is the session's MCP servers; nil when none is configured.
func (s *Session) MCP() *mcpclient.Manager {
	if s.mcp == nil {
		return nil
	}
	return s.mcp.m
}

// WaitMCP waits, as the first model request would, for the servers still starting: a
// headless run calls it before reporting their status.
func (s *Session) WaitMCP(ctx context.Context) {
	if s.mcp != nil && !s.mcp.waited {
		s.mcp.waited = true
		if s.mcp.wait > 0 {
			s.mcp.m.Wait(ctx, s.mcp.wait)
		}
		s.mcp.gen = s.mcp.m.Gen()
		s.mcp.sync()
	}
}
