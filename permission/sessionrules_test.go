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
