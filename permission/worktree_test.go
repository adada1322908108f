package permission

import (
	"context"
	"os"
	"path/filepath"
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
