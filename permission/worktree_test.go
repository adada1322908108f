package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// In a worktree, rules anchored at the project (`/secrets/**`) or absolute cover the
// worktree's copies of the files they name: deny, ask and allow alike; relative rules
// keep following the working directory, and a symlink out of the worktree gains nothing.
func TestWorktreeMirrorsProjectRules(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default", rules{deny: []string{"Read(/secrets/**)", "Edit(//" + e.proj[1:] + "/locked/**)"},
		ask: []string{"Edit(/docs/**)"}, allow: []string{"Edit(/src/**)"}})
	wt := filepath.Join(e.proj, ".ouro", "worktrees", "a")
	if err := os.MkdirAll(filepath.Join(wt, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(e.proj)
	if err != nil {
		t.Fatal(err)
	}
	cws, err := ws.Clone(wt)
	if err != nil {
		t.Fatal(err)
	}
	view := p.WithWorkspace(cws)
	ctx := context.Background()
	call := func(name, path string) tool.Call { return e.call(name, `{"file_path":"`+path+`"}`) }
	check := func(name, rel string) Behavior { return view.Check(ctx, call(name, filepath.Join(wt, rel))).Behavior }
	before := map[string]Behavior{"Read secrets/k": check("Read", "secrets/k"), "Edit locked/x": check("Edit", "locked/x")}
	view.SetWorktree(e.proj, wt)
	for _, c := range []struct {
		name, rel string
		want      Behavior
	}{{"Read", "secrets/k", Deny}, {"Edit", "secrets/k", Deny}, {"Edit", "locked/x", Deny}, {"Edit", "docs/a.md", Ask},
		{"Edit", "src/x.go", Allow}, {"Edit", "other.go", Ask}, {"Read", "other.go", Allow}} {
		if got := check(c.name, c.rel); got != c.want {
			t.Errorf("%s %s in the worktree: %s, want %s", c.name, c.rel, got, c.want)
		}
	}
	if before["Read secrets/k"] == Deny || before["Edit locked/x"] == Deny {
		t.Error("the rules covered the worktree before SetWorktree: the test shows nothing")
	}
	// A link in the worktree to a file outside it is judged where it leads.
	if err := os.Symlink(filepath.Join(e.out, "f"), filepath.Join(wt, "src", "out")); err != nil {
		t.Fatal(err)
	}
	if got := check("Edit", "src/out"); got == Allow {
		t.Errorf("a link out of the worktree was allowed by the mirrored Edit(/src/**)")
	}
	// The main session's own policy is unchanged, and SetWorktree("", "") ends it.
	if v := p.Check(ctx, call("Read", filepath.Join(wt, "secrets", "k"))); v.Behavior == Deny {
		t.Errorf("the base policy mirrors too: %+v", v)
	}
	view.SetWorktree("", "")
	if got := check("Read", "secrets/k"); got == Deny {
		t.Error("the mirror outlived SetWorktree(\"\", \"\")")
	}
}

// An isolated agent's view is confined to its worktree in every mode: with the session
// in bypassPermissions, a write into the main checkout (by Write, Edit or a Bash
// redirect) is asked about as a write outside the workspace, while writes in the worktree
// and what an allow rule covers stay allowed. A view made from it for the agent's own
// permissionMode (WithMode) keeps the confinement and the worktree mirror.
func TestIsolatedViewIsConfinedInBypassMode(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "bypassPermissions", rules{allow: []string{"Edit(//" + e.out[1:] + "/allowed/**)"}, deny: []string{"Read(/secrets/**)"}})
	wt := filepath.Join(e.out, "wt")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(e.proj)
	if err != nil {
		t.Fatal(err)
	}
	cws, err := ws.Clone(wt)
	if err != nil {
		t.Fatal(err)
	}
	view := p.WithWorkspace(cws)
	view.SetWorktree(e.proj, wt)
	sub, err := view.WithMode(ModeBypass)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	main := filepath.Join(e.proj, "src", "x.go")
	for _, pol := range []struct {
		name string
		p    *Policy
	}{{"view", view}, {"WithMode view", sub}} {
		for _, c := range []struct {
			what, tool, in string
			want           Behavior
		}{
			{"Write into the main checkout", "Write", `{"file_path":"` + main + `","content":"x"}`, Ask},
			{"Edit in the main checkout", "Edit", `{"file_path":"` + main + `"}`, Ask},
			{"Bash redirect into the main checkout", "Bash", bash("echo x > " + main), Ask},
			{"Write in the worktree", "Write", `{"file_path":"` + filepath.Join(wt, "x.go") + `","content":"x"}`, Allow},
			{"Bash redirect in the worktree", "Bash", bash("echo x > " + filepath.Join(wt, "x.go")), Allow},
			{"Write an allow rule covers", "Write", `{"file_path":"` + filepath.Join(e.out, "allowed", "y") + `","content":"x"}`, Allow},
			{"Read in the main checkout", "Read", `{"file_path":"` + main + `"}`, Allow},
			{"Read a mirrored deny", "Read", `{"file_path":"` + filepath.Join(wt, "secrets", "k") + `"}`, Deny},
		} {
			v := pol.p.Check(ctx, e.call(c.tool, c.in))
			if v.Behavior != c.want {
				t.Errorf("%s: %s: %s by %q (%s), want %s", pol.name, c.what, v.Behavior, v.Source, v.Reason, c.want)
			}
			if c.want == Ask && (!strings.Contains(v.Reason, "outside the workspace") || !strings.Contains(v.Reason, main)) {
				t.Errorf("%s: %s: the reason does not say it writes %s outside the workspace: %s", pol.name, c.what, main, v.Reason)
			}
		}
	}
	// The session itself, not confined, still has bypass's latitude.
	if v := p.Check(ctx, e.call("Write", `{"file_path":"`+filepath.Join(e.out, "z")+`","content":"x"}`)); v.Behavior != Allow {
		t.Errorf("the session's own bypass mode changed: %+v", v)
	}
}
