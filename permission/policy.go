package permission

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// Mode is a permission mode, as Claude Code names them.
type Mode string

// The permission modes.
const (
	// ModeDefault asks for whatever no rule allows, except reads inside the workspace.
	ModeDefault Mode = "default"
	// ModeAcceptEdits also allows file edits, and mkdir/touch/mv/cp, inside the workspace.
	ModeAcceptEdits Mode = "acceptEdits"
	// ModePlan allows only what observes: everything else no rule allows is refused.
	ModePlan Mode = "plan"
	// ModeDontAsk refuses whatever would ask.
	ModeDontAsk Mode = "dontAsk"
	// ModeBypass allows everything except the hard-deny set, deny rules and ask rules.
	ModeBypass Mode = "bypassPermissions"
)

// ParseMode checks a mode name; "" is the default mode.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ModeDefault, nil
	case ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass:
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use default, acceptEdits, plan, dontAsk or bypassPermissions", s)
}

// Behavior is what a verdict says to do with a call. The zero value is Ask, so a verdict
// nobody filled in never lets a call through.
type Behavior int

// The behaviors.
const (
	Ask Behavior = iota
	Allow
	Deny
)

func (b Behavior) String() string {
	switch b {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	}
	return "ask"
}

// Verdict is the policy's decision on one call.
type Verdict struct {
	Behavior Behavior
	// Reason says what the call would do and why it is allowed, asked about or refused
	// ("writes /home/u/.bashrc, a protected path").
	Reason string
	// Source names what decided: a rule and its file, "mode acceptEdits", "read-only
	// command", "hard deny", "protected path", ...
	Source string
	// FromAskRule is set when an ask rule asked: a hook's allow does not override it.
	FromAskRule bool
	// FromMode is set when the mode refused (plan: what may change something; dontAsk:
	// what no rule allows), not a rule: a hook's allow comes before the mode.
	FromMode bool
	// Summary is the exact action: the command, or the tool and the resolved path.
	Summary string
	// Protected is set when the call writes a protected path (.git, .ouro, .claude,
	// .mcp.json, shell startup files): sandbox.autoAllowBashIfSandboxed still asks.
	Protected bool
	// Suggest lists the narrowest allow rules that would let this call through without
	// asking; empty when no rule can (a protected path, a write outside the workspace).
	Suggest []string
	// Runs is set when all the call does is run shell lines (tool.ActExec actions): the
	// sandbox's settings apply to it (see Gate). A call that also writes a file by itself
	// is not one: the sandbox does not confine that write.
	Runs bool
}

// PolicyConfig is what a policy is built from.
type PolicyConfig struct {
	// Settings holds the rules and the default mode; nil means none.
	Settings *settings.Settings
	// Workspace says where the working directory is and which roots count as inside.
	Workspace *workspace.Workspace
	// Mode overrides Settings' defaultMode when set.
	Mode string
	// WritableRoots are further folders where writes count as inside the workspace (the
	// session's temporary folder, say).
	WritableRoots []string
	// Home anchors `~/` in rules and paths; "" means os.UserHomeDir().
	Home string
	// ProjectDir holds the .ouro/settings.local.json that "always" answers write to;
	// "" means the workspace's working directory.
	ProjectDir string
	// Saved is told each time the policy changes a settings file on the person's word (an
	// "always" answer, /permissions), with its content before (nil: there was no file) and
	// after, so that the change is not taken for the agent's (package grant).
	Saved func(path string, before, after []byte)
}

// Policy evaluates calls against the rules and the mode. It is safe for concurrent use.
type Policy struct {
	ws         *workspace.Workspace
	home       string
	projectDir string
	writable   []string
	problems   []error

	mu                    sync.RWMutex
	mode                  Mode
	deny, ask, allow, ses []Rule
	// noBypass names the settings file that disables bypassPermissions ("" if none).
	noBypass string
	// managedOnly names the managed settings file that allows only its own rules ("" if
	// none): no rule may be added while the session runs.
	managedOnly string

	// base, when set, makes this a view of another policy: its rules (as they change),
	// under this view's own mode, or under base's as it changes when followMode is set.
	base       *Policy
	followMode bool
	// readOnlyOther says which tools that describe nothing of their calls only read (see
	// SetReadOnlyTools).
	readOnlyOther func(name string) bool
	// tools says what calls do (SetTools); nil: Claude Code's tools by name.
	tools tool.CallDescriber
	// turnOwner names the agent a context belongs to (SetTurnOwner).
	turnOwner func(context.Context) string
	// mirror maps a worktree's files to the main checkout's (see SetWorktree).
	mirror mirror
	// confined is set on a view for an agent isolated in a workspace of its own
	// (WithWorkspace): no mode, bypassPermissions included, lets its writes out of it.
	confined bool
	// saved is PolicyConfig.Saved.
	saved func(path string, before, after []byte)
}

// SetTools gives the policy the tools whose calls it decides on (the session's
// registry): each call is judged by what its tool says it does (tool.Describer). Without
// it, or for a tool the registry lacks, a call is described as Claude Code's tool of that
// name would be (tool.DescribeByName). Set it once, before the policy is used.
func (p *Policy) SetTools(d tool.CallDescriber) {
	for p.base != nil {
		p = p.base
	}
	p.mu.Lock()
	p.tools = d
	p.mu.Unlock()
}

// Describe says what call c does as the policy reads it: by the tools it was given
// (SetTools), else as Claude Code's tool of that name would (tool.DescribeByName). A
// mechanism that follows what calls do (the files worked on) asks it, not a list of names.
func (p *Policy) Describe(c tool.Call) ([]tool.Action, error) {
	for p.base != nil {
		p = p.base
	}
	p.mu.Lock()
	d := p.tools
	p.mu.Unlock()
	if d == nil {
		return tool.DescribeByName(c)
	}
	return d.Describe(c)
}

// SetReadOnlyTools tells the policy which tools that describe nothing of their calls only
// read (an MCP server's tools annotated read-only, when the user trusts that server):
// plan mode puts them to the rules and the user like any call, instead of refusing them.
// Set it once, before the policy is used.
func (p *Policy) SetReadOnlyTools(f func(name string) bool) {
	for p.base != nil {
		p = p.base
	}
	p.mu.Lock()
	p.readOnlyOther = f
	p.mu.Unlock()
}

// WithMode is a view of the policy under another mode, sharing its rules, including
// those added later (a subagent whose definition sets permissionMode).
func (p *Policy) WithMode(m Mode) (*Policy, error) {
	if _, err := ParseMode(string(m)); err != nil || m == "" {
		return nil, fmt.Errorf("permission: unknown permission mode %q", m)
	}
	root := p
	for root.base != nil {
		root = root.base
	}
	if m == ModeBypass && root.noBypass != "" {
		return nil, bypassDisabled(root.noBypass)
	}
	// A view of a view keeps what made the first one: its workspace, its worktree
	// mirror and its confinement.
	p.mu.RLock()
	mir := p.mirror
	p.mu.RUnlock()
	return &Policy{ws: p.ws, home: p.home, projectDir: p.projectDir, writable: p.writable, mode: m, base: root,
		mirror: mir, confined: p.confined}, nil
}

// WithWorkspace is a view of the policy for another workspace (a subagent working in its
// own git worktree): the same rules, including those added later, and the same mode as
// this policy as it changes; paths resolve, and count as inside, by ws. The view is
// confined to ws: a write outside it is judged as one outside the workspace in every
// mode, so bypassPermissions asks about it too (an allow rule still allows it), and an
// isolated agent that writes by absolute path into the main checkout is stopped.
func (p *Policy) WithWorkspace(ws *workspace.Workspace) *Policy {
	return &Policy{ws: ws, home: p.home, projectDir: p.projectDir, writable: p.writable, base: p, followMode: true, confined: true}
}

// Stricter reports whether mode a allows no more than mode b: plan, then dontAsk, then
// default, then acceptEdits, then bypassPermissions, from strictest to loosest.
func Stricter(a, b Mode) bool {
	rank := map[Mode]int{ModeBypass: 0, ModeAcceptEdits: 1, ModeDefault: 2, "": 2, ModeDontAsk: 3, ModePlan: 4}
	return rank[a] >= rank[b]
}

// NewPolicy parses the settings' rules. A malformed rule does not stop the session: it
// is left out and reported by Problems. An unknown mode is an error.
func NewPolicy(cfg PolicyConfig) (*Policy, error) {
	if cfg.Workspace == nil {
		return nil, errors.New("permission: a policy needs a workspace")
	}
	s := cfg.Settings
	if s == nil {
		s = &settings.Settings{}
	}
	modeName := cfg.Mode
	if modeName == "" {
		modeName = s.Permissions.DefaultMode.Value
	}
	mode, err := ParseMode(modeName)
	if err != nil {
		return nil, fmt.Errorf("permission: %w", err)
	}
	var modeProblem error
	if mode == ModeBypass && s.Permissions.DisableBypass != "" {
		if cfg.Mode != "" || s.Permissions.DefaultMode.Source == "--permission-mode" {
			return nil, bypassDisabled(s.Permissions.DisableBypass) // asked for explicitly
		}
		modeProblem = fmt.Errorf("%s sets defaultMode bypassPermissions, but %s disables it; the default mode applies", s.Permissions.DefaultMode.Source, s.Permissions.DisableBypass)
		mode = ModeDefault
	}
	p := &Policy{ws: cfg.Workspace, home: cfg.Home, projectDir: cfg.ProjectDir, saved: cfg.Saved, mode: mode, noBypass: s.Permissions.DisableBypass,
		managedOnly: s.Permissions.ManagedRulesOnly}
	if modeProblem != nil {
		p.problems = append(p.problems, modeProblem)
	}
	if p.home == "" {
		p.home, _ = os.UserHomeDir()
	}
	if p.home != "" {
		if real, err := filepath.EvalSymlinks(p.home); err == nil {
			p.home = real
		}
	}
	if p.projectDir == "" {
		p.projectDir = cfg.Workspace.CWD()
	}
	for _, d := range cfg.WritableRoots {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("permission: writable root %s: %w", d, err)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		p.writable = append(p.writable, abs)
	}
	p.deny = p.parseAll(s.Permissions.Deny)
	p.ask = p.parseAll(s.Permissions.Ask)
	p.allow = p.parseAll(s.Permissions.Allow)
	return p, nil
}

func (p *Policy) parseAll(srs []settings.Rule) []Rule {
	var out []Rule
	for _, sr := range srs {
		// Paths are compared as real paths: a root reached through a symlink must be
		// one too, or its `/path` rules would never match.
		if sr.Root != "" {
			if real, err := filepath.EvalSymlinks(sr.Root); err == nil {
				sr.Root = real
			}
		}
		r, err := ParseRule(sr)
		if err != nil {
			p.problems = append(p.problems, err)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Problems lists the rules that could not be parsed and were left out.
func (p *Policy) Problems() []error {
	if p.base != nil {
		return p.base.Problems()
	}
	return append([]error(nil), p.problems...)
}

// Mode is the current permission mode.
func (p *Policy) Mode() Mode {
	if p.followMode {
		return p.base.Mode()
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.mode
}

// SetMode changes the mode (Shift+Tab in the REPL, or leaving plan mode).
func (p *Policy) SetMode(m Mode) error {
	if _, err := ParseMode(string(m)); err != nil || m == "" {
		return fmt.Errorf("permission: unknown permission mode %q", m)
	}
	root := p
	for root.base != nil {
		root = root.base
	}
	if m == ModeBypass && root.noBypass != "" {
		return bypassDisabled(root.noBypass)
	}
	if p.followMode {
		return p.base.SetMode(m)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	return nil
}

// bypassDisabled is the error for entering bypassPermissions where a settings file (a
// managed one, typically) disables it.
func bypassDisabled(source string) error {
	return fmt.Errorf("permission: bypassPermissions is disabled by %s (permissions.disableBypassPermissionsMode)", source)
}

// Hidden reports whether a deny rule naming the whole tool (`Bash`, `WebFetch`,
// `mcp__srv`) removes it from the tools the model is offered.
func (p *Policy) Hidden(toolName string) bool {
	if p.base != nil {
		return p.base.Hidden(toolName)
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	for _, r := range p.deny {
		if r.Bare() && r.Match(Subject{Tool: toolName}) {
			return true
		}
	}
	return false
}
