// Rules added while a session runs: a skill's for the rest of a turn (per agent), the
// user's answers for the session, and "always" answers saved to the local settings.

package permission

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ouroagent/ouro/settings"
)

// AddSessionRuleKind makes text a rule of kind "allow", "ask" or "deny" for this session
// only (nothing is written to a settings file): the Agent SDK's updatedPermissions may
// narrow what is allowed as well as widen it, and a deny it asks for must hold.
func (p *Policy) AddSessionRuleKind(kind, text string) error {
	for p.base != nil {
		p = p.base
	}
	if err := p.rulesLocked(); err != nil {
		return err
	}
	if kind == "allow" {
		return p.AddSessionRule(text)
	}
	if kind != "ask" && kind != "deny" {
		return fmt.Errorf("a rule is allow, ask or deny, not %q", kind)
	}
	r, err := ParseRule(settings.Rule{Text: text, Source: SourceSession, Root: p.projectDir})
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	list := &p.deny
	if kind == "ask" {
		list = &p.ask
	}
	if !slices.ContainsFunc(*list, func(o Rule) bool { return o.Text == r.Text && o.Source == r.Source }) {
		*list = append(*list, r)
	}
	return nil
}

// ManagedRulesOnly names the managed settings file that sets
// allowManagedPermissionRulesOnly ("" when none does): then no rule may be added while
// the session runs, so "for this session" and "always" are not offered.
func (p *Policy) ManagedRulesOnly() string {
	for p.base != nil {
		p = p.base
	}
	return p.managedOnly
}

// rulesLocked refuses a rule added while the session runs under
// allowManagedPermissionRulesOnly. p is the root policy.
func (p *Policy) rulesLocked() error {
	if p.managedOnly != "" {
		return fmt.Errorf("managed settings (%s) set allowManagedPermissionRulesOnly: only their permission rules apply, so no rule can be added", p.managedOnly)
	}
	return nil
}

// SourceSession is the source of the rules added for this session only.
const SourceSession = "this session"

// AddTurnRule allows what text matches until ClearTurnRules (a skill's allowed-tools,
// granted for the rest of the turn that invoked it), for the calls of the agent ctx
// belongs to only (SetTurnOwner): a subagent's or teammate's skill grants its parent
// nothing, nor the other way round.
func (p *Policy) AddTurnRule(ctx context.Context, text string) error {
	if p.base != nil {
		return p.base.AddTurnRule(ctx, text)
	}
	if err := p.rulesLocked(); err != nil {
		return err
	}
	r, err := ParseRule(settings.Rule{Text: text, Source: SourceTurn, Root: p.projectDir})
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	r.owner = p.ownerOf(ctx)
	p.ses = append(p.ses, r)
	return nil
}

// SetTurnOwner tells the policy which agent a context belongs to ("" for the session's
// own), so that turn rules stay with the agent that got them.
func (p *Policy) SetTurnOwner(f func(context.Context) string) {
	if p.base != nil {
		p.base.SetTurnOwner(f)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.turnOwner = f
}

// ownerOf is the agent ctx belongs to. p.mu is held.
func (p *Policy) ownerOf(ctx context.Context) string {
	if p.turnOwner == nil || ctx == nil {
		return ""
	}
	return p.turnOwner(ctx)
}

// ClearTurnRules removes every rule added by AddTurnRule.
func (p *Policy) ClearTurnRules() {
	if p.base != nil {
		p.base.ClearTurnRules()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.ses[:0]
	for _, r := range p.ses {
		if r.Source != SourceTurn {
			kept = append(kept, r)
		}
	}
	p.ses = kept
}

// SourceTurn is the source of rules granted for the current turn only.
const SourceTurn = "this turn (a skill's allowed-tools)"

// AddSessionRule allows what text matches for the rest of the session ("yes, and don't
// ask again this session").
func (p *Policy) AddSessionRule(text string) error {
	if p.base != nil {
		return p.base.AddSessionRule(text)
	}
	if err := p.rulesLocked(); err != nil {
		return err
	}
	r, err := ParseRule(settings.Rule{Text: text, Source: SourceSession, Root: p.projectDir})
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, old := range p.ses {
		if old.Text == r.Text {
			return nil
		}
	}
	p.ses = append(p.ses, r)
	return nil
}

// LocalSettingsPath is the file "always" answers are written to.
func (p *Policy) LocalSettingsPath() string {
	return filepath.Join(p.projectDir, ".ouro", "settings.local.json")
}

// AddLocalRule allows what text matches from now on: for this session, and in the
// project's .ouro/settings.local.json for the sessions to come. The rule in force names
// that file as its source (not "this session"), as the next session's will.
func (p *Policy) AddLocalRule(text string) error {
	if p.base != nil {
		return p.base.AddLocalRule(text)
	}
	if err := p.rulesLocked(); err != nil {
		return err
	}
	local := p.LocalSettingsPath()
	r, err := ParseRule(settings.Rule{Text: text, Source: local, Root: p.projectDir})
	if err != nil {
		return err
	}
	if err := p.saving(local, func() error { return AppendAllowRule(local, text) }); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.ContainsFunc(p.allow, func(o Rule) bool { return o.Text == r.Text && o.Source == r.Source }) {
		p.allow = append(p.allow, r)
	}
	return nil
}

// Carried is what the user decided while a session ran: the mode they switched to and
// the rules they answered "for this session". It outlives the session's policy when the
// same interactive session is opened again (/model, /resume), so a switch neither resets
// the mode nor asks again what was already allowed or refused.
type Carried struct {
	Mode  Mode
	Rules []CarriedRule
}

// CarriedRule is one session rule: Kind is "allow", "ask" or "deny".
type CarriedRule struct{ Kind, Text string }

// Carry is the policy's mode and its session rules (not a turn's: those end with it).
func (p *Policy) Carry() Carried {
	c := Carried{Mode: p.Mode()}
	for p.base != nil {
		p = p.base
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	for _, g := range []struct {
		kind  string
		rules []Rule
	}{{"deny", p.deny}, {"ask", p.ask}, {"allow", p.ses}} {
		for _, r := range g.rules {
			if r.Source == SourceSession {
				c.Rules = append(c.Rules, CarriedRule{Kind: g.kind, Text: r.Text})
			}
		}
	}
	return c
}

// Restore puts what Carry took into this policy: the session rules join its own (but for those
// its settings already hold), and the mode replaces the settings' (an empty mode keeps it). Every rule is tried; the errors
// are joined.
func (p *Policy) Restore(c Carried) error {
	var errs []error
	deny, ask, allow := p.Rules()
	have := map[string][]Rule{"deny": deny, "ask": ask, "allow": allow}
	for _, r := range c.Rules {
		if slices.ContainsFunc(have[r.Kind], func(o Rule) bool { return o.Text == r.Text }) {
			continue // the settings hold it already (an "always" answer saved to the local file)
		}
		if err := p.AddSessionRuleKind(r.Kind, r.Text); err != nil {
			errs = append(errs, fmt.Errorf("session rule %s %s: %w", r.Kind, r.Text, err))
		}
	}
	if c.Mode != "" && c.Mode != p.Mode() {
		if err := p.SetMode(c.Mode); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
