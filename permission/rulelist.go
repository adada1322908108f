package permission

import (
	"bytes"
	"fmt"
	"os"
	"slices"

	"github.com/ouroagent/ouro/settings"
)

// Rules lists the policy's rules as they stand: deny, ask and allow (the session's and
// this turn's grants included), each with the file or flag it came from.
func (p *Policy) Rules() (deny, ask, allow []Rule) {
	for p.base != nil {
		p = p.base
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	deny = append([]Rule(nil), p.deny...)
	ask = append([]Rule(nil), p.ask...)
	allow = append(append([]Rule(nil), p.allow...), p.ses...)
	return deny, ask, allow
}

// SaveLocalRule makes text a rule of kind "allow", "ask" or "deny" from now on: in force
// for this session at once, and kept in the project's .ouro/settings.local.json for the
// sessions to come (the user's /permissions).
func (p *Policy) SaveLocalRule(kind, text string) error {
	for p.base != nil {
		p = p.base
	}
	if kind == "allow" {
		return p.AddLocalRule(text)
	}
	if kind != "ask" && kind != "deny" {
		return fmt.Errorf("a rule is allow, ask or deny, not %q", kind)
	}
	if err := p.rulesLocked(); err != nil {
		return err
	}
	r, err := ParseRule(settings.Rule{Text: text, Source: p.LocalSettingsPath(), Root: p.projectDir})
	if err != nil {
		return err
	}
	if err := p.saving(p.LocalSettingsPath(), func() error { return AppendRule(p.LocalSettingsPath(), kind, text) }); err != nil {
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

// RemoveLocalRule takes text out of the project's .ouro/settings.local.json and out of
// the rules in force that came from it or from this session's answers. A rule that only
// another file holds stays: elsewhere names those files, for the user to edit.
func (p *Policy) RemoveLocalRule(text string) (removed []string, elsewhere []string, err error) {
	for p.base != nil {
		p = p.base
	}
	local := p.LocalSettingsPath()
	if err = p.saving(local, func() (err error) { removed, err = RemoveRule(local, text); return err }); err != nil {
		return nil, nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	drop := func(list []Rule, kind string) []Rule {
		return slices.DeleteFunc(list, func(r Rule) bool {
			if r.Text != text {
				return false
			}
			if r.Source == local || r.Source == SourceSession {
				if !slices.Contains(removed, kind) {
					removed = append(removed, kind)
				}
				return true
			}
			if !slices.Contains(elsewhere, r.Source) {
				elsewhere = append(elsewhere, r.Source)
			}
			return false
		})
	}
	p.deny, p.ask, p.allow, p.ses = drop(p.deny, "deny"), drop(p.ask, "ask"), drop(p.allow, "allow"), drop(p.ses, "allow")
	return removed, elsewhere, nil
}

// saving runs write, which changes the settings file at path on the person's word, and
// tells PolicyConfig.Saved what it changed.
func (p *Policy) saving(path string, write func() error) error {
	before, err := os.ReadFile(path)
	if err != nil {
		before = nil
	}
	if err := write(); err != nil {
		return err
	}
	if p.saved != nil {
		if after, err := os.ReadFile(path); err == nil && !bytes.Equal(before, after) {
			p.saved(path, before, after)
		}
	}
	return nil
}
