package permission

// How the policy judges one call: a snapshot of its state, the actions the call's tool
// describes, each judged by its kind against the rules, the mode and the workspace, and
// the strictest verdict.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

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
			where += ", outside the workspace" + st.missingHint(tg.real)
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

// missingHint says, of a path outside the workspace, that nothing is there, and names the
// file of the same name at a workspace root if there is one: a model that made a path up
// ("/path/to/duration.py") hears where the file it means is, instead of only how to allow
// writing to a place that does not exist. "" for a path that exists.
func (st *state) missingHint(path string) string {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if st.ws == nil {
		return " (nothing is there)"
	}
	for _, root := range st.ws.Roots() {
		if c := filepath.Join(root, filepath.Base(path)); c != path {
			if fi, err := os.Lstat(c); err == nil && fi.Mode().IsRegular() {
				return fmt.Sprintf(" (nothing is there; the workspace has %s)", c)
			}
		}
	}
	return fmt.Sprintf(" (nothing is there; the workspace is %s)", strings.Join(st.ws.Roots(), ", "))
}
