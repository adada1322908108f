package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// A skill loaded by the model is put back after the conversation is summarized, and a
// resumed session still knows it.
func TestInvokedSkillSurvivesCompactionAndResume(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	dir := filepath.Join(cwd, ".ouro", "skills", "release-notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: release-notes\ndescription: Writes release notes\n---\nAlways group changes under FEATURES-AND-FIXES headings.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	call, _ := json.Marshal(map[string]string{"skill": "release-notes"})
	s, prov := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: call}}},
		{Text: "loaded"},
		{Text: "Summary: the user wants release notes."}, // the compaction summary
		{Text: "still following the skill"},
	}, nil)
	ctx := context.Background()
	if out := s.Run(ctx, "write the notes"); !out.OK() {
		t.Fatalf("first run: %+v", out)
	}
	if err := s.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	for _, m := range s.Conv.Messages {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				t.Fatalf("the summary kept the old tool result; the test cannot tell restoring from keeping")
			}
		}
	}
	if out := s.Run(ctx, "go on"); !out.OK() {
		t.Fatalf("run after the summary: %+v", out)
	}
	reqs := prov.Requests()
	var sent strings.Builder
	for _, m := range reqs[len(reqs)-1].Messages {
		sent.WriteString(m.Text())
	}
	if !strings.Contains(sent.String(), "FEATURES-AND-FIXES") {
		t.Fatalf("the request after the summary lost the skill's text:\n%s", sent.String())
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	r, _ := open(t, home, cwd, []scripted.Turn{{Text: "unused"}}, func(o *Options) { o.Resume.ID = id })
	defer r.Close()
	restored := r.context().Compactor.Config().Restore()
	var all strings.Builder
	for _, b := range restored {
		all.WriteString(b.Text)
	}
	if !strings.Contains(all.String(), `<skill name="release-notes">`) || !strings.Contains(all.String(), "FEATURES-AND-FIXES") {
		t.Errorf("a resumed session lost the skill:\n%s", all.String())
	}
}
