//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/skill"
)

// Issue 30, item 12: a user with 181 skills (the size of a real collection) gets a
// listing in which a model can still choose by description: the budget grows with the
// number of skills, and when that is not enough, as many skills as fit keep at least 120
// characters rather than all being cut to about 14. `ouro doctor` says what was cut.
func TestSkillListingOf181SkillsThroughTheBinary(t *testing.T) {
	e := newEnv(t)
	descs := map[string]string{}
	for i := range 181 {
		name := fmt.Sprintf("team-skill-%03d", i)
		d := fmt.Sprintf("Use when the user asks for report %d: ", i) + strings.Repeat(fmt.Sprintf("reads the ledger for quarter %d and reconciles it; ", i%4), 2+i%9)
		descs[name] = strings.TrimSpace(d)
		writeFile(t, filepath.Join(e.home, ".claude", "skills", name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+descs[name]+"\n---\nDo it.\n")
	}
	srv := e.fake(scripted.Turn{Text: "ok"})
	if out, stderr, code := e.run("", "-p", "hi"); code != 0 || out != "ok\n" {
		t.Fatalf("exit %d %q\n%s", code, out, stderr)
	}
	_, _, raw := requestFields(t, srv.Requests()[0].Body)
	var blocks []struct{ Text string }
	if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
		t.Fatalf("system: %v\n%s", err, raw)
	}
	system := ""
	for _, b := range blocks {
		system += b.Text
	}
	start, end := strings.Index(system, "<available_skills>"), strings.Index(system, "</available_skills>")
	if start < 0 || end < start {
		t.Fatalf("no skill listing in the system prompt:\n%s", system)
	}
	listing := system[start:end]
	if len(listing) > skill.Budget(181) || len(listing) <= skill.DefaultBudget {
		t.Errorf("listing is %d characters; the budget for 181 skills is %d", len(listing), skill.Budget(181))
	}
	useful, named := 0, 0
	for name, d := range descs {
		i := strings.Index(listing, "- "+name)
		if i < 0 {
			t.Fatalf("%s is not listed", name)
		}
		line, _, _ := strings.Cut(listing[i:], "\n")
		shown, ok := strings.CutPrefix(line, "- "+name+": ")
		switch {
		case !ok:
			named++
		case len(shown) >= 119 || shown == d:
			useful++
		default:
			t.Errorf("%s cut to a stub: %q", name, shown)
		}
	}
	if useful < 82 {
		t.Fatalf("%d of 181 descriptions of 120 characters or whole (Claude Code: 82), %d by name alone", useful, named)
	}

	out, stderr, _ := e.run("", "doctor")
	for _, want := range []string{
		"skill listing in the system prompt: 181 skills",
		fmt.Sprintf("listed by name alone (%d)", named),
		"descriptions shortened for ",
		"team-skill-180",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not say %q:\n%s\n%s", want, out, stderr)
		}
	}
}
