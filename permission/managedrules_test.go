package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/workspace"
)

// Issue 26, D11: under managed settings' allowManagedPermissionRulesOnly no rule is added
// while the session runs: the person is offered only "yes once" and "no", an answer for
// the session or "always" allows that call only and saves nothing, and a session, turn
// (a skill's allowed-tools) or local rule added any other way is refused.
func TestManagedRulesOnlyAddsNoRule(t *testing.T) {
	e := newEnv(t)
	ws, err := workspace.New(e.proj)
	if err != nil {
		t.Fatal(err)
	}
	managed := "/etc/ouro/managed-settings.json"
	p, err := NewPolicy(PolicyConfig{Workspace: ws, Home: e.home,
		Settings: &settings.Settings{Permissions: settings.Permissions{ManagedRulesOnly: managed}}})
	if err != nil {
		t.Fatal(err)
	}
	if p.ManagedRulesOnly() != managed {
		t.Fatalf("ManagedRulesOnly %q", p.ManagedRulesOnly())
	}
	for _, choice := range []Choice{Session, Always} {
		ap := &fakeApprover{answer: Answer{Choice: choice}}
		g := NewGate(p, ap, nil, nil)
		for range 2 {
			if d := g.Gate(context.Background(), e.call("Read", `{"file_path":"{O}/f.txt"}`)); d.Deny {
				t.Fatalf("%v: denied %+v", choice, d)
			}
		}
		if len(ap.prompts) != 2 || ap.prompts[0].SuggestedRule != "" || len(ap.prompts[0].Rules) != 0 {
			t.Errorf("%v: asked %d times, offered %q: want every call asked, no rule offered", choice, len(ap.prompts), ap.prompts[0].SuggestedRule)
		}
	}
	if _, err := os.Stat(filepath.Join(e.proj, ".ouro", "settings.local.json")); err == nil {
		t.Error("an answer was saved to settings.local.json")
	}
	view, _ := p.WithMode(ModeAcceptEdits)
	for name, add := range map[string]func() error{
		"session":      func() error { return p.AddSessionRule("Read") },
		"session deny": func() error { return p.AddSessionRuleKind("deny", "Read") },
		"turn":         func() error { return view.AddTurnRule(context.Background(), "Read") },
		"local":        func() error { return p.AddLocalRule("Read") },
		"local ask":    func() error { return p.SaveLocalRule("ask", "Read") },
	} {
		if err := add(); err == nil || !strings.Contains(err.Error(), "allowManagedPermissionRulesOnly") || !strings.Contains(err.Error(), managed) {
			t.Errorf("%s rule: %v", name, err)
		}
	}
	if deny, ask, allow := p.Rules(); len(deny)+len(ask)+len(allow) != 0 {
		t.Errorf("rules were added: %v %v %v", deny, ask, allow)
	}
}
