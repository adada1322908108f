package permission

import (
	"fmt"
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
