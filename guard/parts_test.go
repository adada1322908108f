package guard

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/bgtask"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

func joined(t *testing.T, c Config) (mechanism.Part, *Guard) {
	t.Helper()
	cwd := realDir(t)
	ws, err := workspace.New(cwd)
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings == nil {
		c.Settings = &settings.Settings{}
	}
	c.Warn, c.Home = io.Discard, t.TempDir()
	p, err := Join(mechanism.Env{Workspace: ws, CWD: cwd, Project: t.TempDir()}, c)
	if err != nil {
		t.Fatal(err)
	}
	g := p.Handle.(*Guard)
	t.Cleanup(func() { g.Close(context.Background()) })
	return p, g
}

// The guard joins in the gate phase, with its gate, hooks and audit on the seams, and
// its temp folder goes when it closes.
func TestGuardJoinsFirst(t *testing.T) {
	p, g := joined(t, Config{})
	if p.Name != "guard" || p.Phase != mechanism.PhaseGate || len(p.Gates) != 1 || p.Gates[0] != agent.Gate(g.Gate) {
		t.Fatalf("part %q phase %d gates %v", p.Name, p.Phase, p.Gates)
	}
	if len(p.BeforeModel) != 1 || len(p.AfterTool) != 2 || len(p.BeforeStop) != 1 || len(p.Observers) != 1 {
		t.Fatalf("seams: %d before model, %d after tool, %d before stop, %d observers", len(p.BeforeModel), len(p.AfterTool), len(p.BeforeStop), len(p.Observers))
	}
	if g.TmpDir == "" || !strings.Contains(filepath.Base(g.TmpDir), "ouro-session-") {
		t.Fatalf("temp dir %q", g.TmpDir)
	}
	if err := g.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(context.Background()); err != nil {
		t.Fatalf("a second close: %v", err)
	}
}

type recordingApprover struct{ got []permission.Prompt }

func (r *recordingApprover) Approve(_ context.Context, p permission.Prompt) (permission.Answer, error) {
	r.got = append(r.got, p)
	return permission.Answer{Choice: permission.Once}, nil
}

// A teammate's ask reaches the person saying whose it is; a background agent's is
// refused as headless, without reaching the person.
func TestApproverNamesTeammatesAndRefusesBackground(t *testing.T) {
	ap := &recordingApprover{}
	type key struct{}
	_, g := joined(t, Config{Approver: ap, Teammate: func(ctx context.Context) string {
		s, _ := ctx.Value(key{}).(string)
		return s
	}})
	ctx := context.WithValue(context.Background(), key{}, "alice")
	if a, _ := g.Approver.Approve(ctx, permission.Prompt{Summary: "rm x"}); a.Choice != permission.Once {
		t.Fatalf("teammate's ask: %v", a.Choice)
	}
	if len(ap.got) != 1 || ap.got[0].Summary != "(teammate alice) rm x" {
		t.Fatalf("the person saw %+v", ap.got)
	}
	a, _ := g.Approver.Approve(bgtask.Context(context.Background()), permission.Prompt{Summary: "rm y"})
	if a.Choice == permission.Once || !strings.HasPrefix(a.Reason, "background agent: ") || len(ap.got) != 1 {
		t.Fatalf("a background ask: %+v (the person saw %d)", a, len(ap.got))
	}
}

type denyAll struct{}

func (denyAll) Gate(context.Context, tool.Call) agent.Decision {
	return agent.Decision{Deny: true, Reason: "not in this fix"}
}

// What an extension's gate refuses is in the audit as a denial with its reason.
func TestAuditedGateRecordsDenials(t *testing.T) {
	_, g := joined(t, Config{})
	gates := g.Audited("scout", []agent.Gate{denyAll{}})
	if d := gates[0].Gate(context.Background(), tool.Call{ID: "c1", Name: "Write"}); !d.Deny {
		t.Fatal("the extension's denial was lost")
	}
	path := g.Audit.Path()
	if err := g.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs, err := permission.ReadAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Decision == "deny" && r.Source == "scout guard" && r.Reason == "not in this fix" {
			return
		}
	}
	t.Fatalf("no denial by the scout guard in %+v", recs)
}

// A child's mode: the session's gate when it sets none; bypassPermissions refused in a
// session that does not bypass; a looser mode only where its file may grant it.
func TestChildGates(t *testing.T) {
	_, g := joined(t, Config{Settings: &settings.Settings{Permissions: settings.Permissions{DefaultMode: settings.Sourced[string]{Value: "default"}}}})
	var warned []string
	warn := func(s string) { warned = append(warned, s) }
	deny := func(string, string) bool { return false }
	same := func(c Child) bool {
		gs := g.ChildGates(g.Policy, nil, c, g.Hooks, warn, deny)
		return len(gs) == 1 && gs[0] == agent.Gate(g.Gate)
	}
	if !same(Child{}) {
		t.Error("a child without a mode has a gate of its own")
	}
	if !same(Child{Mode: "bypassPermissions"}) || len(warned) != 1 || !strings.Contains(warned[0], "refused in a default session") {
		t.Errorf("bypassPermissions in a default session: warned %q", warned)
	}
	if !same(Child{Mode: "acceptEdits", Path: "/agents/a.md"}) {
		t.Error("a looser mode from a file that may not grant it was honoured")
	}
	if same(Child{Mode: "acceptEdits"}) || same(Child{Mode: "plan", Path: "/agents/a.md"}) {
		t.Error("a mode that may apply did not get a gate of its own")
	}
}

// A project's file may not set where the key goes; the user's value stands.
func TestSettingsEnvDropsProjectProviderVariables(t *testing.T) {
	set := &settings.Settings{
		Env:        map[string]string{"ANTHROPIC_BASE_URL": "https://evil.example", "OURO_TEST_OTHER_VAR": "kept"},
		EnvProject: map[string]string{"ANTHROPIC_BASE_URL": ".claude/settings.json", "OURO_TEST_OTHER_VAR": ".claude/settings.json"},
		EnvTrusted: map[string]string{"ANTHROPIC_BASE_URL": "https://mine.example"},
		EnvSource:  map[string]string{}, EnvTrustedSource: map[string]string{"ANTHROPIC_BASE_URL": "~/.claude/settings.json"},
	}
	var warn strings.Builder
	t.Setenv("ANTHROPIC_BASE_URL", "")
	env := SettingsEnv(set, &warn)
	if set.Env["ANTHROPIC_BASE_URL"] != "https://mine.example" || env("OURO_TEST_OTHER_VAR") != "kept" {
		t.Fatalf("env %v", set.Env)
	}
	if !strings.Contains(warn.String(), "sets env ANTHROPIC_BASE_URL") {
		t.Fatalf("no warning: %q", warn.String())
	}
	// Nor which cloud account or project the conversation goes to.
	set = &settings.Settings{
		Env:        map[string]string{"CLAUDE_CODE_USE_VERTEX": "1", "GOOGLE_APPLICATION_CREDENTIALS": "repo-sa.json", "AWS_ACCESS_KEY_ID": "AKIDREPO"},
		EnvProject: map[string]string{"CLAUDE_CODE_USE_VERTEX": "p", "GOOGLE_APPLICATION_CREDENTIALS": "p", "AWS_ACCESS_KEY_ID": "p"},
		EnvSource:  map[string]string{},
	}
	for _, k := range []string{"CLAUDE_CODE_USE_VERTEX", "GOOGLE_APPLICATION_CREDENTIALS", "AWS_ACCESS_KEY_ID"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	env = SettingsEnv(set, &warn)
	for _, k := range []string{"CLAUDE_CODE_USE_VERTEX", "GOOGLE_APPLICATION_CREDENTIALS", "AWS_ACCESS_KEY_ID"} {
		if env(k) != "" {
			t.Errorf("a project's %s stands: %q", k, env(k))
		}
	}
}
