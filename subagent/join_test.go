package subagent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

type warnings []string

func (w *warnings) Warnf(format string, args ...any) { *w = append(*w, fmt.Sprintf(format, args...)) }

// Join offers Agent (Task deferred), finds the project's definitions and the extra
// ones, warns about a definition it cannot read, and keeps children's transcripts in
// the session's folder.
func TestJoinFindsDefinitionsAndOffersAgent(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, ".claude", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "reviewer.md"), []byte("---\nname: reviewer\ndescription: reviews\n---\nReview."), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "broken.md"), []byte("no front matter"), 0o644); err != nil {
		t.Fatal(err)
	}
	var w warnings
	session := filepath.Join(t.TempDir(), "s1")
	p, err := Join(mechanism.Env{SessionDir: session, Warn: &w},
		JoinConfig{Dir: dir, Extra: []Definition{{Name: "sdk-agent", Description: "given"}}, Config: Config{Tools: tool.NewRegistry()}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Phase != mechanism.PhaseDelegation || len(p.Tools) != 1 || p.Tools[0].Spec().Name != AgentName ||
		len(p.Deferred) != 1 || p.Deferred[0].Spec().Name != TaskName {
		t.Errorf("part = phase %d, %d tools, %d deferred; want Agent offered and Task deferred in PhaseDelegation", p.Phase, len(p.Tools), len(p.Deferred))
	}
	a, ok := mechanism.Handle[*Agents]([]mechanism.Part{p})
	if !ok || a.Task == nil {
		t.Fatal("the part's handle is not the *Agents")
	}
	var names []string
	for _, d := range a.Definitions {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, " "); got != "reviewer sdk-agent" {
		t.Errorf("definitions = %q, want the project's then the extra one", got)
	}
	if len(w) != 1 || !strings.HasPrefix(w[0], "agent ") || !strings.Contains(w[0], "broken.md") {
		t.Errorf("warnings = %q, want one about broken.md", w)
	}
	if got := a.Task.sh.cfg.TranscriptDir; got != filepath.Join(session, "subagents") {
		t.Errorf("transcripts go to %s, want the session's subagents/ folder", got)
	}
}
