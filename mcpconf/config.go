// Package mcpconf reads the MCP servers a session may use, from the files Claude Code
// reads and in its shapes: the project's .mcp.json, the user's servers in ~/.ouro.json
// (and ~/.claude.json), the servers of this project only ("local" scope, under
// projects[<dir>] in those files) and --mcp-config. A project's servers run only once the
// user has approved them (enabledMcpjsonServers, enableAllProjectMcpServers), which a
// repository cannot do for itself. The package starts nothing and imports no MCP SDK, so
// reading the configuration costs nothing when no server is configured.
package mcpconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/internal/regfile"
)

// Scopes say where a server was configured.
const (
	ScopeLocal   = "local"   // ~/.ouro.json projects[<dir>].mcpServers: this user, this project
	ScopeProject = "project" // <dir>/.mcp.json: shared with everyone who clones the project
	ScopeUser    = "user"    // ~/.ouro.json mcpServers: this user, every project
	ScopeDynamic = "dynamic" // --mcp-config
)

// Transports.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
	// TypeSDK is a server living inside the program that drives ouro through the Claude
	// Agent SDK, reached over the control protocol (mcp_message); only --mcp-config can
	// name one.
	TypeSDK = "sdk"
)

// States of a server that is not started (the client adds its own: pending, connected,
// failed).
const (
	StateNeedsApproval = "needs-approval"
	StateDisabled      = "disabled"
	StateInvalid       = "failed"
)

// Server is one configured server, its ${VAR}s expanded.
type Server struct {
	Name   string `json:"name"`
	Scope  string `json:"scope"`
	Source string `json:"source"` // the file (or --mcp-config) that defines it
	Type   string `json:"type"`

	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`

	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// OAuth configures the login of a streamable HTTP server (nil: dynamic registration).
	OAuth *OAuth `json:"oauth,omitempty"`

	// State is set for a server that must not start: needs-approval, disabled or failed
	// (its configuration is wrong); Reason says why, for the user.
	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Changed says, for a project server the user approved in another shape, what
	// changed since ("command changed from node to sh"): it needs approving again.
	Changed string `json:"changed,omitempty"`

	// fingerprint is a project server's configuration as .mcp.json writes it, which an
	// approval is bound to (see Approve).
	fingerprint *Fingerprint
}

// Runnable reports whether the server may be started.
func (s Server) Runnable() bool { return s.State == "" }

// Entry is a server as written in a file: {"type","command","args","env","url","headers"}.
type Entry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	OAuth   *OAuth            `json:"oauth,omitempty"`
}

// OAuth is a server's "oauth" entry: the client ouro logs in as, when the authorization
// server does not take dynamic registration (clientId, clientSecret; ${VAR} expands), a
// client metadata document URL, and the loopback port the redirect comes back to.
type OAuth struct {
	ClientID          string `json:"clientId,omitempty"`
	ClientSecret      string `json:"clientSecret,omitempty"`
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	CallbackPort      int    `json:"callbackPort,omitempty"`
}

// Options say where to look.
type Options struct {
	CWD string // the project folder (absolute)
	// UserHome holds ~/.ouro.json, ~/.claude.json and ~/.claude/settings.json.
	UserHome string
	// OuroHome holds ouro's settings.json ("" → UserHome/.ouro).
	OuroHome string
	// Flags are the --mcp-config values: files or inline JSON, each {"mcpServers":{...}}.
	Flags []string
	// Strict is --strict-mcp-config: only the Flags' servers.
	Strict bool
	// Getenv expands ${VAR}; nil → os.Getenv.
	Getenv func(string) string
	// Unreviewed says why a user settings file's content may not approve servers (an
	// ouro session wrote it and nobody reviewed it since: see package grant), "" when it
	// may; nil → every user file may.
	Unreviewed func(path string, data []byte) string
	// Plugins are the MCP servers of the session's plugins (not read under Strict).
	Plugins []PluginServers
}

// Config is what Load found.
type Config struct {
	Servers []Server // sorted by name; State set for those that must not start
	// Warnings are problems that did not stop the load (a user file that is not JSON, a
	// project file trying to approve its own servers).
	Warnings []string
}

// Runnable returns the servers that may start.
func (c *Config) Runnable() []Server {
	var out []Server
	for _, s := range c.Servers {
		if s.Runnable() {
			out = append(out, s)
		}
	}
	return out
}

// Find returns the server called name.
func (c *Config) Find(name string) (Server, bool) {
	for _, s := range c.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return Server{}, false
}

// maxUserFile bounds ~/.claude.json, which Claude Code fills with per-project history.
const maxUserFile = 64 << 20

// UserFile is ouro's own user file, which `ouro mcp add` writes (~/.ouro.json).
func UserFile(home string) string { return filepath.Join(home, ".ouro.json") }

// ProjectFile is the project's shared file.
func ProjectFile(cwd string) string { return filepath.Join(cwd, ".mcp.json") }

// Load reads every source. A project file or --mcp-config value that is broken is an
// error (the user asked for it, or it is here to be fixed); a broken user file is a
// warning. A server defined in several places comes from the most specific: --mcp-config,
// then local, project, user.
func Load(o Options) (*Config, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	cfg := &Config{}
	byName := map[string]Server{}
	add := func(scope, source string, entries map[string]Entry) {
		for name, e := range entries {
			if _, have := byName[name]; have {
				continue // a more specific scope already defines it
			}
			byName[name] = resolve(name, scope, source, e, o.Getenv)
		}
	}
	for _, f := range o.Flags {
		entries, source, err := readFlag(f, o.CWD)
		if err != nil {
			return nil, err
		}
		add(ScopeDynamic, source, entries)
	}
	if !o.Strict {
		users := userFiles(o.UserHome)
		var ap approval
		for _, uf := range users {
			doc, err := readUserDoc(uf)
			if err != nil {
				cfg.Warnings = append(cfg.Warnings, err.Error())
				continue
			}
			if p, ok := doc.Projects[o.CWD]; ok {
				add(ScopeLocal, uf+" (projects."+o.CWD+")", p.MCPServers)
				ap.merge(p.approvalFields, true)
				if uf == UserFile(o.UserHome) {
					ap.approved = p.Approved // ouro's own record; Claude Code's file has none
				}
			}
		}
		proj := ProjectFile(o.CWD)
		projEntries, err := readServersFile(proj)
		if err != nil {
			return nil, err
		}
		for _, uf := range users {
			if doc, err := readUserDoc(uf); err == nil {
				add(ScopeUser, uf, doc.MCPServers)
			}
		}
		ap.fromSettings(o, cfg)
		for name, e := range projEntries {
			if _, have := byName[name]; have {
				continue
			}
			s := resolve(name, ScopeProject, proj, e, o.Getenv)
			fp := fingerprintOf(s.Type, e)
			s.fingerprint = &fp
			if s.State == "" {
				s.State, s.Reason, s.Changed = ap.decide(name, fp)
			}
			byName[name] = s
		}
		addPlugins(o, &ap, byName)
	}
	for _, s := range byName {
		cfg.Servers = append(cfg.Servers, s)
	}
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	refuseClashes(cfg.Servers)
	return cfg, nil
}

// userFiles are ouro's user file, then Claude Code's: ouro's wins for a name in both.
func userFiles(home string) []string {
	if home == "" {
		return nil
	}
	return []string{UserFile(home), filepath.Join(home, ".claude.json")}
}

// userDoc is the part of ~/.ouro.json (or ~/.claude.json) ouro reads.
type userDoc struct {
	MCPServers map[string]Entry       `json:"mcpServers"`
	Projects   map[string]projectPart `json:"projects"`
}

type projectPart struct {
	MCPServers map[string]Entry `json:"mcpServers"`
	approvalFields
	Approved map[string]Fingerprint `json:"ouroApprovedMcpjsonServers"`
}

// approvalFields are Claude Code's per-project choices about the project's .mcp.json.
type approvalFields struct {
	EnableAll *bool    `json:"enableAllProjectMcpServers"`
	Enabled   []string `json:"enabledMcpjsonServers"`
	Disabled  []string `json:"disabledMcpjsonServers"`
}

func readUserDoc(path string) (*userDoc, error) {
	data, err := regfile.Read(path, maxUserFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &userDoc{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("MCP servers in %s are left out: %v", path, err)
	}
	doc := &userDoc{}
	if len(bytes.TrimSpace(data)) == 0 {
		return doc, nil
	}
	if err := json.Unmarshal(data, doc); err != nil {
		return nil, fmt.Errorf("MCP servers in %s are left out: it is not valid JSON of the expected shape (%v)", path, err)
	}
	return doc, nil
}

// serversDoc is a .mcp.json or --mcp-config document.
type serversDoc struct {
	MCPServers map[string]Entry `json:"mcpServers"`
}

func readServersFile(path string) (map[string]Entry, error) {
	data, err := regfile.Read(path, regfile.MaxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return parseServers(path, data)
}

func parseServers(source string, data []byte) (map[string]Entry, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc serversDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s is not a valid MCP configuration: %v (expected {\"mcpServers\": {\"NAME\": {\"command\": ...}}})", source, err)
	}
	return doc.MCPServers, nil
}

// readFlag reads one --mcp-config value: inline JSON or a file (relative to cwd).
func readFlag(v, cwd string) (map[string]Entry, string, error) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "{") {
		e, err := parseServers("--mcp-config", []byte(v))
		return e, "--mcp-config", err
	}
	p := v
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	data, err := regfile.Read(p, regfile.MaxConfig)
	if err != nil {
		return nil, "", fmt.Errorf("--mcp-config %s: %w", v, err)
	}
	e, err := parseServers(p, data)
	return e, p, err
}

// resolve checks one entry and expands its variables; a problem becomes the server's
// failed state, never an error for the whole session.
func resolve(name, scope, source string, e Entry, getenv func(string) string) Server {
	s := Server{Name: name, Scope: scope, Source: source, Type: e.Type}
	fail := func(format string, a ...any) Server {
		s.State, s.Reason = StateInvalid, fmt.Sprintf(format, a...)
		return s
	}
	switch strings.ToLower(e.Type) {
	case "", TypeStdio:
		s.Type = TypeStdio
	case TypeHTTP, "streamable-http", "streamablehttp":
		s.Type = TypeHTTP
	case TypeSSE:
		s.Type = TypeSSE
	case TypeSDK:
		s.Type = TypeSDK
	default:
		return fail("unknown type %q in %s (use stdio, http or sse)", e.Type, source)
	}
	if !validName(name) && (scope != ScopePlugin || !validPluginName(name)) {
		return fail("the name %q may hold only letters, digits, spaces, '-', '_' and '.' (%s)", name, source)
	}
	if s.Type == TypeSDK {
		if scope != ScopeDynamic {
			return fail("a server of type \"sdk\" lives in the program driving ouro through the Claude Agent SDK; only --mcp-config may name one (%s)", source)
		}
		return s
	}
	var missing []string
	x := func(v string) string {
		out, miss := Expand(v, getenv)
		missing = append(missing, miss...)
		return out
	}
	if s.Type == TypeStdio {
		if strings.TrimSpace(e.Command) == "" {
			return fail("a stdio server needs a \"command\" (%s)", source)
		}
		if e.OAuth != nil {
			return fail("\"oauth\" works with streamable HTTP servers only, not stdio (%s)", source)
		}
		s.Command = x(e.Command)
		for _, a := range e.Args {
			s.Args = append(s.Args, x(a))
		}
		if len(e.Env) > 0 {
			s.Env = map[string]string{}
			for k, v := range e.Env {
				s.Env[k] = x(v)
			}
		}
	} else {
		if strings.TrimSpace(e.URL) == "" {
			return fail("an %s server needs a \"url\" (%s)", s.Type, source)
		}
		s.URL = x(e.URL)
		if len(e.Headers) > 0 {
			s.Headers = map[string]string{}
			for k, v := range e.Headers {
				s.Headers[k] = x(v)
			}
		}
		if e.OAuth != nil {
			if s.Type != TypeHTTP {
				return fail("\"oauth\" works with streamable HTTP servers only (type \"http\"), not %s (%s)", s.Type, source)
			}
			if e.OAuth.CallbackPort < 0 || e.OAuth.CallbackPort > 65535 {
				return fail("\"oauth\".callbackPort %d is not a port (%s)", e.OAuth.CallbackPort, source)
			}
			s.OAuth = &OAuth{ClientID: x(e.OAuth.ClientID), ClientSecret: x(e.OAuth.ClientSecret),
				ClientMetadataURL: x(e.OAuth.ClientMetadataURL), CallbackPort: e.OAuth.CallbackPort}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fail("missing environment variable(s) %s, used in %s without a ${VAR:-default}", strings.Join(dedupe(missing), ", "), source)
	}
	return s
}

// validName accepts a server name: 1 to 64 of [A-Za-z0-9_.-] and spaces, as Claude Code
// does ("Sequential Thinking"), a space neither first nor last. Its tools are named with
// SafeName (spaces become '_'), and refuseClashes keeps two names that meet there apart.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for _, r := range s {
		if !safeRune(r) && r != '.' && r != ' ' {
			return false
		}
	}
	return true
}

func safeRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// varRef is ${NAME} or ${NAME:-default}; compiled on first use, so a session without
// MCP servers pays nothing for it.
var varRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
})

// Expand replaces ${VAR} and ${VAR:-default} in s, as Claude Code does; missing lists the
// variables that were unset (or empty) with no default, which are left as written.
func Expand(s string, getenv func(string) string) (out string, missing []string) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	re := varRef()
	out = re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if v := getenv(sub[1]); v != "" {
			return v
		}
		if sub[2] != "" {
			return sub[3]
		}
		missing = append(missing, sub[1])
		return m
	})
	return out, missing
}

func dedupe(ss []string) []string {
	var out []string
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// refuseClashes fails every server whose name, made safe for tool names, equals an
// earlier one's: their tools could not be told apart.
func refuseClashes(ss []Server) {
	seen := map[string]string{}
	for i := range ss {
		key := strings.ToLower(SafeName(ss[i].Name))
		if other, ok := seen[key]; ok {
			ss[i].State = StateInvalid
			ss[i].Reason = fmt.Sprintf("its tools would be named like those of server %q (mcp__%s__…); rename one of them", other, SafeName(ss[i].Name))
			continue
		}
		seen[key] = ss[i].Name
	}
}

// SafeName makes a name fit a tool name: characters outside [A-Za-z0-9_-] become '_'.
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		if safeRune(r) {
			return r
		}
		return '_'
	}, s)
}
