package permission

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/internal/textcut"
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
		modeName = s.Permissions.DefaultMode
	}
	mode, err := ParseMode(modeName)
	if err != nil {
		return nil, fmt.Errorf("permission: %w", err)
	}
	var modeProblem error
	if mode == ModeBypass && s.Permissions.DisableBypass != "" {
		if cfg.Mode != "" || s.Permissions.ModeSource == "--permission-mode" {
			return nil, bypassDisabled(s.Permissions.DisableBypass) // asked for explicitly
		}
		modeProblem = fmt.Errorf("%s sets defaultMode bypassPermissions, but %s disables it; the default mode applies", s.Permissions.ModeSource, s.Permissions.DisableBypass)
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

// state is a snapshot of the policy for one check, so a concurrent SetMode or session
// rule cannot change the answer halfway.
type state struct {
	*Policy
	mode       Mode
	allow      []Rule
	deny, asks []Rule
	cwd        string
	// ws is the workspace of the policy checked (a view's own), shadowing the embedded
	// root policy's.
	ws *workspace.Workspace
	// mirror is the view's own when it has one, else the root's (see SetWorktree).
	mirror mirror
	// confined: the view's (see Policy.confined).
	confined bool
	// tools: the root's, read under its lock (see SetTools).
	tools tool.CallDescriber
}

func (p *Policy) snapshot(ctx context.Context) *state {
	if p.base != nil {
		st := p.base.snapshot(ctx)
		st.mode = p.Mode()
		st.ws, st.cwd = p.ws, p.ws.CWD()
		st.confined = st.confined || p.confined
		p.mu.RLock()
		if p.mirror.wt != "" {
			st.mirror = p.mirror
		}
		p.mu.RUnlock()
		return st
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	allow := append([]Rule(nil), p.allow...)
	owner := p.ownerOf(ctx)
	for _, r := range p.ses {
		if r.Source != SourceTurn || r.owner == owner {
			allow = append(allow, r)
		}
	}
	return &state{Policy: p, mode: p.mode, allow: allow, deny: p.deny, asks: p.ask, cwd: p.ws.CWD(), ws: p.ws, mirror: p.mirror, tools: p.tools}
}

// Check decides on one call: what its tool says it does (tool.Action: the registry set
// with SetTools, or Claude Code's tool of that name), each action judged on its own (hard
// deny for a shell line, then deny rules, ask rules, protected paths, allow rules, and
// finally the mode), and the strictest verdict of its actions for the call. See the
// package tests for the full table.
func (p *Policy) Check(ctx context.Context, c tool.Call) Verdict {
	st := p.snapshot(ctx)
	acts, err := st.describe(c)
	if err != nil {
		return Verdict{Behavior: Deny, Summary: c.Name, Source: "invalid input",
			Reason: fmt.Sprintf("the input of %s could not be checked: %v; send a valid input", c.Name, err)}
	}
	var v Verdict
	for i, a := range acts {
		av := st.action(c, a)
		if i == 0 {
			v = av
			continue
		}
		v = stricter(v, av)
	}
	return st.finish(v)
}

// describe says what c does, by the tools the policy was given (SetTools) or else by
// Claude Code's tool of that name; a tool that says nothing does something Unknown.
func (st *state) describe(c tool.Call) ([]tool.Action, error) {
	var acts []tool.Action
	var err error
	if st.tools != nil {
		acts, err = st.tools.Describe(c)
	} else {
		acts, err = tool.DescribeByName(c)
	}
	if err != nil {
		return nil, err
	}
	if len(acts) == 0 {
		acts = []tool.Action{{Kind: tool.ActUnknown}}
	}
	return acts, nil
}

// action decides on one action of call c.
func (st *state) action(c tool.Call, a tool.Action) Verdict {
	switch a.Kind {
	case tool.ActExec:
		v := st.checkBash(a.Command)
		v.Runs = true
		return v
	case tool.ActRead, tool.ActWrite:
		var v Verdict
		for i, p := range a.Paths {
			pv := st.checkFile(c.Name, a, p)
			if i == 0 {
				v = pv
			} else {
				v = stricter(v, pv)
			}
		}
		if len(a.Paths) == 0 {
			v = st.checkFile(c.Name, a, "")
		}
		return v
	case tool.ActNet:
		host := ""
		if u, err := url.Parse(a.URL); err == nil {
			host = u.Hostname()
		}
		s := st.actionSubject(c.Name, a)
		s.Host = host
		v := st.single(s, kindNet, nil, c.Name+" "+a.URL)
		v.Suggest = suggestIf(v, tool.ActNet.RuleName()+"(domain:"+strings.ToLower(host)+")", host != "")
		return v
	case tool.ActSession:
		s := st.actionSubject(c.Name, a)
		s.Name = a.Name
		v := st.single(s, kindSession, nil, strings.TrimSpace(c.Name+" "+a.Name))
		v.Suggest = suggestIf(v, c.Name+"("+a.Name+")", a.Name != "")
		return v
	}
	k := kindOther
	if a.Kind == tool.ActObserve || st.readOnlyOther != nil && st.readOnlyOther(c.Name) {
		k = kindReadOther
	}
	v := st.single(st.actionSubject(c.Name, a), k, nil, c.Name+" "+clipText(string(c.Input), 200))
	v.Suggest = suggestIf(v, c.Name, true)
	return v
}

// stricter combines the verdicts of two actions of one call: a deny before an ask
// before an allow. An ask offers the rules that would let both through, or none when one
// of them cannot be allowed by a rule.
func stricter(a, b Verdict) Verdict {
	rank := func(x Behavior) int { return map[Behavior]int{Allow: 0, Ask: 1, Deny: 2}[x] }
	out := a
	// At the same behavior, a rule's verdict wins over the mode's (a hook's allow comes
	// before the mode, never before a deny or ask rule) and an ask rule's over the others.
	firm := func(v Verdict) bool { return v.FromAskRule || v.Behavior == Deny && !v.FromMode }
	if rank(b.Behavior) > rank(a.Behavior) || rank(b.Behavior) == rank(a.Behavior) && firm(b) && !firm(a) {
		out = b
	}
	if a.Behavior == Ask && b.Behavior == Ask {
		if len(a.Suggest) > 0 && len(b.Suggest) > 0 {
			out.Suggest = append(append([]string(nil), a.Suggest...), b.Suggest...)
		} else {
			out.Suggest = nil
		}
	}
	out.Protected = a.Protected || b.Protected
	out.Runs = a.Runs && b.Runs
	if a.Summary != b.Summary {
		out.Summary = a.Summary + "; " + b.Summary
	}
	return out
}

// confinedNote says why bypassPermissions did not allow a write of an isolated agent.
const confinedNote = "this agent works in a workspace of its own (its git worktree), and no permission mode, bypassPermissions included, lets it write outside that without a rule or an approval; write inside the worktree instead"

// finish applies dontAsk: with nobody to ask, whatever would ask is refused.
func (st *state) finish(v Verdict) Verdict {
	if v.Behavior == Ask && st.mode == ModeDontAsk {
		v.Behavior = Deny
		v.Reason = "dontAsk mode refuses what would need approval: " + v.Reason
		if !v.FromAskRule {
			v.Source, v.FromMode = "mode dontAsk", true
		}
		v.Suggest = nil
	}
	return v
}

func suggestIf(v Verdict, rule string, ok bool) []string {
	if v.Behavior != Ask || v.FromAskRule || v.Source == "protected path" || !ok {
		return nil
	}
	if _, err := ParseRule(settings.Rule{Text: rule}); err != nil {
		return nil
	}
	return []string{rule}
}

func (st *state) subject(toolName string) Subject {
	return Subject{Tool: toolName, CWD: st.cwd, Home: st.home}
}

// kindSubject is the subject of an action of kind k as the rules of its kind name it
// (Read for a file a command reads, Edit for one it writes, Bash for a command).
func (st *state) kindSubject(k tool.Kind) Subject {
	return Subject{Tool: k.RuleName(), Kind: k, CWD: st.cwd, Home: st.home}
}

// actionSubject is the subject of action a of a call of toolName.
func (st *state) actionSubject(toolName string, a tool.Action) Subject {
	return Subject{Tool: toolName, Kind: a.Kind, Also: a.Also, CWD: st.cwd, Home: st.home}
}

// kind says what an action does, for the mode step.
type kind int

const (
	kindRead      kind = iota // reads files: free inside the workspace
	kindWrite                 // writes files
	kindNet                   // reaches the network: asks unless allowed, as in Claude Code
	kindSession               // changes only the session's own state
	kindOther                 // anything else (MCP tools): asks
	kindReadOther             // a tool known to only read, outside the tables: asks, even in plan mode
)

// target is a path an action touches, lexically and as resolved through symlinks.
type target struct {
	given, lex, real string
	// glob is set for a shell word whose pattern could expand to a protected name.
	glob bool
}

// single decides on an action with one subject: the rules, then protected paths, then
// the mode. tg is the path it touches, if any.
func (st *state) single(s Subject, k kind, tg *target, summary string) Verdict {
	v := Verdict{Summary: summary}
	if r, ok := st.firstMatch(st.deny, s, tg, k == kindWrite); ok {
		v.Behavior, v.Source = Deny, r.String()
		v.Reason = fmt.Sprintf("%s is denied by the rule %s", summary, r)
		return v
	}
	if k == kindWrite && st.mode == ModePlan {
		// Plan mode writes nothing, whatever the allow rules say, as in Claude Code.
		v.Behavior, v.Source, v.FromMode = Deny, "mode plan", true
		v.Reason = fmt.Sprintf("plan mode writes no file, whatever the allow rules say, and %s would; present the plan and wait for it to be approved", summary)
		return v
	}
	if r, ok := st.firstMatch(st.asks, s, tg, false); ok {
		v.Behavior, v.Source, v.FromAskRule = Ask, r.String(), true
		v.Reason = fmt.Sprintf("the rule %s asks before %s", r, summary)
		return v
	}
	if k == kindWrite && tg != nil && st.mode != ModeBypass && st.protected(tg) {
		v.Behavior, v.Source, v.Protected = Ask, "protected path", true
		v.Reason = fmt.Sprintf("writes %s, a protected path (.git, .ouro, .claude, .mcp.json, ~/.ouro.json, ~/.claude.json and shell startup files are never written without asking)", tg.real)
		return v
	}
	if r, ok := st.allowMatch(s, tg); ok {
		v.Behavior, v.Source = Allow, r.String()
		v.Reason = "allowed by the rule " + r.Text
		return v
	}
	inside := tg != nil && st.inside(tg.real)
	where := ""
	if tg != nil {
		where = tg.real
		if !inside {
			where += ", outside the workspace"
		}
	}
	switch {
	case st.mode == ModeBypass && k == kindWrite && tg != nil && !inside && st.confined:
		v.Behavior, v.Source, v.Reason = Ask, "outside the workspace", "writes "+where+"; "+confinedNote
	case st.mode == ModeBypass:
		v.Behavior, v.Source, v.Reason = Allow, "mode bypassPermissions", "bypassPermissions mode allows it"
	case k == kindSession:
		v.Behavior, v.Source, v.Reason = Allow, "session tool", s.Tool+" changes only the session's own state"
	case k == kindRead && (tg == nil || inside):
		v.Behavior, v.Source, v.Reason = Allow, "read-only tool", "reads inside the workspace"
	case k == kindRead:
		v.Behavior, v.Source, v.Reason = Ask, "outside the workspace", "reads "+where
	case k == kindWrite && st.mode == ModeAcceptEdits && inside:
		v.Behavior, v.Source, v.Reason = Allow, "mode acceptEdits", "acceptEdits mode allows edits inside the workspace"
	case st.mode == ModePlan && k != kindNet && k != kindReadOther:
		v.Behavior, v.Source, v.FromMode = Deny, "mode plan", true
		v.Reason = fmt.Sprintf("plan mode allows only read-only actions, and %s is not one; present the plan and wait for it to be approved", summary)
	case k == kindWrite:
		v.Behavior, v.Source, v.Reason = Ask, "no matching rule", "writes "+where+"; no allow rule covers it"
	default:
		v.Behavior, v.Source, v.Reason = Ask, "no matching rule", "no allow rule covers "+summary
	}
	return v
}

// firstMatch finds the first rule covering s, trying the path as given and as resolved
// (so a deny on a symlink's name or on its target both hold). For writes, a rule on
// reading the path covers it too: a Read deny also blocks edits there.
func (st *state) firstMatch(rules []Rule, s Subject, tg *target, readCoversWrite bool) (Rule, bool) {
	for _, r := range rules {
		for _, q := range st.variants(s, tg) {
			if r.Match(q) {
				return r, true
			}
			if readCoversWrite && r.Tool == tool.ActRead.RuleName() {
				q.Tool, q.Kind, q.Also = r.Tool, tool.ActRead, nil
				if r.Match(q) {
					return r, true
				}
			}
		}
	}
	if tg != nil && tg.real != "" {
		return st.sameFileMatch(rules, s, tg)
	}
	return Rule{}, false
}

// allowMatch finds an allow rule; a path rule must cover the path as resolved, so a
// symlink inside an allowed folder cannot carry a write somewhere else.
func (st *state) allowMatch(s Subject, tg *target) (Rule, bool) {
	subjects := []Subject{s}
	if tg != nil {
		s.Path = tg.real
		subjects = []Subject{s}
		if m := st.mirror.mirrored(tg.real); m != "" {
			s.Path = m
			subjects = append(subjects, s)
		}
	}
	for _, r := range st.allow {
		for _, q := range subjects {
			if r.Match(q) {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// variants are the paths a deny or ask rule is tried on: the path as given and as
// resolved, and in a worktree their counterparts in the main checkout.
func (st *state) variants(s Subject, tg *target) []Subject {
	if tg == nil {
		return []Subject{s}
	}
	var out []Subject
	for _, p := range []string{tg.lex, tg.real, st.mirror.mirrored(tg.lex), st.mirror.mirrored(tg.real)} {
		if p != "" && !slices.ContainsFunc(out, func(q Subject) bool { return q.Path == p }) {
			q := s
			q.Path = p
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		return []Subject{s}
	}
	return out
}

// checkFile decides on a Read or Write action a of a call of toolName on path p.
func (st *state) checkFile(toolName string, a tool.Action, p string) Verdict {
	k := kindRead
	write := a.Kind == tool.ActWrite
	if write {
		k = kindWrite
	}
	if p == "" {
		if !a.Search {
			return Verdict{Behavior: Deny, Source: "invalid input", Summary: toolName,
				Reason: toolName + " was called without a file path, so there is nothing to check or run"}
		}
		p = st.cwd // a search starts in the working directory by default
	}
	tg, err := st.resolve(p, st.cwd)
	if err != nil {
		return Verdict{Behavior: Deny, Source: "invalid input", Summary: toolName + " " + p,
			Reason: fmt.Sprintf("the path of %s could not be resolved: %v", toolName, err)}
	}
	s := st.actionSubject(toolName, a)
	v := st.single(s, k, &tg, toolName+" "+tg.real)
	v.Suggest = suggestIf(v, a.Kind.RuleName()+"("+st.pathSpec(tg.real, a.Search)+")", true)
	return v
}

// clipText is s on one line (each run of white space made one space), cut to n bytes.
func clipText(s string, n int) string {
	return textcut.Bytes(strings.Join(strings.Fields(s), " "), n, "…")
}
