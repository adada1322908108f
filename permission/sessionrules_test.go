package permission

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A session deny or ask rule holds at once, even against an allow rule and in
// bypassPermissions (deny), and is written to no settings file.
func TestAddSessionRuleKind(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "bypassPermissions", rules{allow: []string{"Bash(rm *)"}})
	if err := p.AddSessionRuleKind("deny", "Bash(rm *)"); err != nil {
		t.Fatal(err)
	}
	if err := p.AddSessionRuleKind("ask", "Bash(git push *)"); err != nil {
		t.Fatal(err)
	}
	if v := p.Check(context.Background(), e.call("Bash", bash("rm -rf build"))); v.Behavior != Deny || v.Source != "Bash(rm *) (this session)" {
		t.Errorf("rm after a session deny rule: %+v", v)
	}
	if v := p.Check(context.Background(), e.call("Bash", bash("git push origin main"))); v.Behavior != Ask || !v.FromAskRule {
		t.Errorf("git push after a session ask rule: %+v", v)
	}
	if err := p.AddSessionRuleKind("maybe", "Bash"); err == nil {
		t.Error("a rule kind that is not allow, ask or deny was accepted")
	}
	if err := p.AddSessionRuleKind("deny", "Bash(unclosed"); err == nil {
		t.Error("a malformed rule was accepted")
	}
	if _, err := os.Stat(filepath.Join(e.proj, ".ouro", "settings.local.json")); err == nil {
		t.Error("a session rule was written to .ouro/settings.local.json")
	}
}

type agentKey struct{}

// A turn rule (a skill's allowed-tools) allows the calls of the agent that got it only:
// not its parent's, not a sibling's, not through a view of the policy; ClearTurnRules
// ends them all.
func TestTurnRulesStayWithTheirAgent(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default", rules{})
	p.SetTurnOwner(func(ctx context.Context) string { s, _ := ctx.Value(agentKey{}).(string); return s })
	child := context.WithValue(context.Background(), agentKey{}, "child-1")
	sibling := context.WithValue(context.Background(), agentKey{}, "child-2")
	view, err := p.WithMode(ModeDefault)
	if err != nil {
		t.Fatal(err)
	}
	if err := view.AddTurnRule(child, "Bash(touch *)"); err != nil {
		t.Fatal(err)
	}
	call := e.call("Bash", bash("touch x"))
	if v := view.Check(child, call); v.Behavior != Allow {
		t.Errorf("the child's own call: %+v", v)
	}
	for name, ctx := range map[string]context.Context{"parent": context.Background(), "sibling": sibling} {
		if v := p.Check(ctx, call); v.Behavior == Allow {
			t.Errorf("the %s's call was allowed by the child's turn rule: %+v", name, v)
		}
	}
	if err := p.AddTurnRule(context.Background(), "Bash(touch *)"); err != nil {
		t.Fatal(err)
	}
	if v := view.Check(sibling, call); v.Behavior == Allow {
		t.Errorf("the parent's turn rule allowed a child's call: %+v", v)
	}
	p.ClearTurnRules()
	if v := p.Check(child, call); v.Behavior == Allow {
		t.Errorf("a turn rule outlived ClearTurnRules: %+v", v)
	}
}

// Carry takes the mode and the session's own rules (not the settings', not a turn's);
// Restore puts them into a fresh policy, where they decide as before, without doubling
// a rule the fresh policy's settings already hold.
func TestCarryAndRestore(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default", rules{allow: []string{"Read"}})
	if err := p.SetMode(ModeAcceptEdits); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]string{{"allow", "Bash(go test *)"}, {"deny", "Bash(rm *)"}, {"ask", "Bash(git push *)"}, {"allow", "Read"}} {
		if err := p.AddSessionRuleKind(r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.AddTurnRule(context.Background(), "Bash(make *)"); err != nil {
		t.Fatal(err)
	}
	c := p.Carry()
	if c.Mode != ModeAcceptEdits || len(c.Rules) != 4 {
		t.Fatalf("carried %+v", c)
	}
	fresh := e.policy(t, "default", rules{allow: []string{"Read"}})
	if err := fresh.Restore(c); err != nil {
		t.Fatal(err)
	}
	if fresh.Mode() != ModeAcceptEdits {
		t.Errorf("mode after Restore = %s", fresh.Mode())
	}
	ctx := context.Background()
	if v := fresh.Check(ctx, e.call("Bash", bash("go test ./..."))); v.Behavior != Allow {
		t.Errorf("go test after Restore: %+v", v)
	}
	if v := fresh.Check(ctx, e.call("Bash", bash("rm -rf x"))); v.Behavior != Deny {
		t.Errorf("rm after Restore: %+v", v)
	}
	if v := fresh.Check(ctx, e.call("Bash", bash("git push"))); v.Behavior != Ask || !v.FromAskRule {
		t.Errorf("git push after Restore: %+v", v)
	}
	if v := fresh.Check(ctx, e.call("Bash", bash("make all"))); v.Behavior == Allow {
		t.Errorf("a turn rule was carried: %+v", v)
	}
	_, _, allow := fresh.Rules()
	n := 0
	for _, r := range allow {
		if r.Text == "Read" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("Read is listed %d times after Restore: %+v", n, allow)
	}
}
