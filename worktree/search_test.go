package worktree

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// The main session's searches do not wander into the worktrees (copies of the whole
// checkout): the folder's .gitignore keeps them out, as it keeps them out of git status.
func TestMainSearchesSkipWorktrees(t *testing.T) {
	root := repo(t)
	if _, err := New(root, Options{}).Create(context.Background(), "copy"); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]any{"pattern": "hello", "output_mode": "files_with_matches"})
	res, err := tools.NewGrep(ws).Run(context.Background(), tool.ExecInput(in))
	if err != nil || strings.Contains(res.Text(), filepath.Join(".ouro", "worktrees")) || !strings.Contains(res.Text(), "README") {
		t.Fatalf("Grep: %q %v", res.Text(), err)
	}
	in, _ = json.Marshal(map[string]any{"pattern": "**/README"})
	res, err = tools.NewGlob(ws).Run(context.Background(), tool.ExecInput(in))
	if err != nil || strings.Contains(res.Text(), "worktrees") || !strings.Contains(res.Text(), "README") {
		t.Fatalf("Glob: %q %v", res.Text(), err)
	}
}
