package permission

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A git command that can print any tracked file's content from history (git show <sha>,
// git diff, git log -p, cat-file) is asked about while a deny rule guards a file in the
// repository, as git grep is; without one, and for history commands that print no
// content, nothing changes. Run from a subfolder, the repository above is not an
// outside read in itself.
func TestGitHistoryDumpsRespectReadDenyRules(t *testing.T) {
	e := newEnv(t)
	os.WriteFile(filepath.Join(e.proj, ".env"), []byte("TOKEN=x\n"), 0o600)
	deny := e.policy(t, "", rules{deny: []string{"Read(./.env)"}})
	open := e.policy(t, "", rules{})
	for _, tc := range []struct {
		line       string
		denied     bool // with the deny rule: not allowed without asking
		openAllows bool // with no rule at all: allowed as read-only
	}{
		{"git show HEAD", true, true},
		{"git show 1a2b3c4", true, true},
		{"git diff HEAD~1", true, true},
		{"git log -p", true, true},
		{"git log --patch -3", true, true},
		{"git cat-file -p 1a2b3c4", true, false},
		{"git stash show -p", true, false},
		{"git log --oneline -5", false, true},
		{"git status", false, true},
	} {
		v := deny.Check(context.Background(), e.call("Bash", bash(tc.line)))
		if got := v.Behavior != Allow; got != tc.denied {
			t.Errorf("%q with Read(./.env) denied: %s (%s), want not-allowed=%v", tc.line, v.Behavior, v.Reason, tc.denied)
		}
		v = open.Check(context.Background(), e.call("Bash", bash(tc.line)))
		if tc.openAllows && v.Behavior != Allow {
			t.Errorf("%q with no rules: %s (%s), want allowed", tc.line, v.Behavior, v.Reason)
		}
	}
}
