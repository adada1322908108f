package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/grant"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

// SessionOptions say which MCP servers a session uses besides those of its
// configuration files.
type SessionOptions struct {
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
	Elicit   func(context.Context, *Elicitation) Answer
	OnElicit func(*Elicitation, Answer)
	// SDK reaches the servers of type "sdk" (the Claude Agent SDK's in-process servers);
	// nil when no SDK drives the session.
	SDK func(server string) mcp.Transport
}

// AuthDir is where remote MCP servers' OAuth tokens are kept, under ouro's home
// (never the project): one 0600 file per server URL.
func AuthDir(home string) string { return filepath.Join(home, "mcp-auth") }

// DefaultWait is how long the first request waits for servers still starting.
// OURO_MCP_WAIT (a duration, "500ms") changes it.
const DefaultWait = 5 * time.Second

// mcpSettle bounds the wait for a server re-listing its tools (it said they changed)
// before a request.
const mcpSettle = 2 * time.Second

// Instruction budgets: what each server's instructions and all of them may add to the
// system prompt.
const (
	mcpInstructionsPerServer = 2048
	mcpInstructionsTotal     = 8192
)

// Session joins the session's MCP servers to its tool pool: before each model request
// it brings the registry in line with the servers' current tools (a server that came up,
// re-listed its tools or died), under the same hiding (deny rules) and --tools list as
// the built-in tools.
type Session struct {
	m      *Manager
	reg    *tool.Registry
	hidden func(string) bool
	only   []string
	wait   time.Duration

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

// JoinConfig is what a session gives its MCP servers.
type JoinConfig struct {
	Options SessionOptions
	// UserConfig is where the user's own configuration is (~); Home is ouro's state.
	UserConfig, Home string
	// Version is the client version servers are told.
	Version string
	// Supervise runs stdio servers under the sandbox launcher's supervision.
	Supervise bool
	// Registry is the session's final registry, which the servers' tools join; Hidden
	// hides what a deny rule names and Only is the --tools list.
	Registry *tool.Registry
	Hidden   func(string) bool
	Only     []string
	// Plugins are the session's plugins' servers (plugin:<plugin>:<server>).
	Plugins []mcpconf.PluginServers
	// StartTimeout, when set, is MCP_TIMEOUT as the session reads it (the environment,
	// then the settings' env), over what the process environment alone says.
	StartTimeout time.Duration
	// MaxResultChars is Options.MaxResultChars (MAX_MCP_OUTPUT_TOKENS).
	MaxResultChars int
}

// Join loads the MCP configuration and, when it names any server, starts the runnable
// ones in the background; before each model request the part brings the registry in
// line with the servers' tools (PhaseRemote: after every other tool). No server
// configured: a part with nothing, and nothing runs. The Part's Handle is the *Session.
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	o := jc.Options
	ledger := grant.Open(env.Project)
	opts := mcpconf.Options{CWD: env.CWD, UserHome: jc.UserConfig, OuroHome: jc.Home, Flags: o.Configs, Strict: o.Strict, Plugins: jc.Plugins,
		// A user settings file an ouro session wrote approves no server until a person
		// reviews it (issue 26, D12), as it grants no permission.
		Unreviewed: func(path string, data []byte) string {
			if ok, why, _ := ledger.Trusted(path, data); !ok {
				return why
			}
			return ""
		}}
	none := mechanism.Part{Name: "mcp", Phase: mechanism.PhaseRemote}
	cfg, err := mcpconf.Load(opts)
	if err != nil {
		return none, err
	}
	if o.Approve != nil && askApproval(cfg, o.Approve, jc.UserConfig, env.CWD, env.Warn) {
		if cfg, err = mcpconf.Load(opts); err != nil {
			return none, err
		}
	}
	for _, w := range cfg.Warnings {
		env.Warn.Warnf("mcp: %s", w)
	}
	if len(cfg.Servers) == 0 {
		return none, nil
	}
	mo := Options{CWD: env.CWD, LogDir: filepath.Join(env.Project, "mcp-logs"), Version: jc.Version,
		Supervise: jc.Supervise, Trusted: trustedServers(cfg), Elicit: o.Elicit, OnElicit: o.OnElicit,
		AuthDir: AuthDir(jc.Home), SDK: o.SDK, Warn: func(msg string) { env.Warn.Warnf("%s", msg) }}
	mo.TimeoutsFromEnv(os.Getenv)
	if jc.StartTimeout > 0 {
		mo.StartTimeout = jc.StartTimeout
	}
	mo.MaxResultChars = jc.MaxResultChars
	m := New(cfg.Servers, mo)
	m.Start()
	wait := o.Wait
	if v, err := time.ParseDuration(os.Getenv("OURO_MCP_WAIT")); err == nil && o.Wait == 0 {
		wait = v
	}
	if wait == 0 {
		wait = DefaultWait
	}
	x := &Session{m: m, wait: wait, reg: jc.Registry, hidden: jc.Hidden, only: jc.Only}
	none.BeforeModel, none.Handle = []agent.BeforeModel{x}, x
	none.Close = func() error { m.Close(); return nil }
	return none, nil
}

// askApproval asks about each project server awaiting approval and records the yeses;
// it reports whether any was approved.
func askApproval(cfg *mcpconf.Config, approve func(name, what string) bool, userConfig, cwd string, warn mechanism.Warner) bool {
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
	if err := mcpconf.Approve(userConfig, cwd, yes, true); err != nil {
		warn.Warnf("mcp: the approval could not be saved (%v); it holds for this session only", err)
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
// read-only annotations are believed; a project's .mcp.json servers' and a plugin's are not.
func trustedServers(cfg *mcpconf.Config) func(string) bool {
	trusted := map[string]bool{}
	for _, s := range cfg.Servers {
		trusted[s.Name] = s.Scope != mcpconf.ScopeProject && s.Scope != mcpconf.ScopePlugin
	}
	return func(name string) bool { return trusted[name] }
}

// BeforeModel waits (once, briefly) for servers still starting, syncs the tools and adds
// the servers' instructions to this request's system prompt.
func (x *Session) BeforeModel(ctx context.Context, t *agent.Turn) error {
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
func (x *Session) sync() {
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
		t := tt.(*Tool)
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
			refused[srv] = append(refused[srv], fmt.Sprintf("%s: the name is taken by a tool of server %q (names are cut to %d characters and made safe)", name, other, MaxToolName))
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
		t := t.(*Tool)
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

// ReadOnly reports whether name is an MCP tool that only reads, by the annotation of a
// server the user trusts (their own configuration, not a project's .mcp.json).
func (x *Session) ReadOnly(name string) bool {
	m := x.readOnlyNames.Load()
	return m != nil && (*m)[name]
}

// Manager is the session's servers.
func (x *Session) Manager() *Manager { return x.m }

// WaitStarted waits, as the first model request would, for the servers still starting:
// a headless run calls it before reporting their status.
func (x *Session) WaitStarted(ctx context.Context) {
	if !x.waited {
		x.waited = true
		if x.wait > 0 {
			x.m.Wait(ctx, x.wait)
		}
		x.gen = x.m.Gen()
		x.sync()
	}
}

// mentionRE finds @server:uri references in a prompt; compiled on first use.
var mentionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9_.-]+):(\S+)`)
})

// maxMentions bounds how many resources one prompt may pull in.
const maxMentions = 10

// Input makes a prompt ready for the model: "/mcp__<server>__<prompt> args" becomes
// the server prompt's text, and each @server:uri a connected server can read is attached
// after the prompt. A reference that cannot be read is said so, not dropped silently.
func (s *Session) Input(ctx context.Context, prompt string) (string, []llm.Block, error) {
	if s == nil || prompt == "" {
		return prompt, nil, nil
	}
	if !strings.HasPrefix(strings.TrimSpace(prompt), "/mcp__") && !strings.Contains(prompt, "@") {
		return prompt, nil, nil
	}
	s.WaitStarted(ctx)
	m := s.m
	if strings.HasPrefix(strings.TrimSpace(prompt), "/mcp__") {
		text, ok, err := m.ExpandPrompt(ctx, prompt)
		if err != nil {
			return "", nil, err
		}
		if !ok {
			cmd, _, _ := strings.Cut(strings.TrimSpace(prompt), " ")
			return "", nil, fmt.Errorf("%s is not a prompt of a connected MCP server (/mcp lists them)", cmd)
		}
		prompt = text
	}
	var extra []llm.Block
	for i, sub := range mentionRE().FindAllStringSubmatch(prompt, -1) {
		server, uri := sub[1], sub[2]
		if !m.Has(server) {
			continue // an e-mail address or a handle, not a server
		}
		if i >= maxMentions {
			extra = append(extra, llm.TextBlock(fmt.Sprintf("[more than %d MCP resources are referenced; the rest are not attached]", maxMentions)))
			break
		}
		blocks, err := m.ReadResource(ctx, server, uri)
		if err != nil {
			extra = append(extra, llm.TextBlock(fmt.Sprintf("[@%s:%s could not be attached: %v]", server, uri, err)))
			continue
		}
		extra = append(extra, blocks...)
	}
	return prompt, extra, nil
}
