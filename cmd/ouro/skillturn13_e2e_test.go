//go:build unix

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// A skill's model: serves the rest of the turn it is invoked in, resolved like an
// agent's; the next prompt is the session's model's again. On izzzzzi/izteam's real
// think skill ("model: opus"): invoked by the model mid-turn, and as the user's /think.
func TestSkillModelServesItsTurn(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "izteam")
	call, _ := json.Marshal(map[string]string{"skill": "think", "args": "caching"})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: call}}},
		scripted.Turn{ExpectContains: "# Structured Thinking", Text: "thought"},
		scripted.Turn{ExpectContains: "next question", Text: "answered"},
	)
	in := userLine("think about caching") + userLine("next question")
	out, stderr, code := e.run(in, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--model", "sonnet")
	if code != 0 || strings.Contains(stderr, "think") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var got []string
	for _, r := range srv.Requests() {
		m, _, _ := requestFields(t, r.Body)
		got = append(got, m)
	}
	if want := "claude-sonnet-5-5,claude-opus-5-5,claude-sonnet-5-5"; strings.Join(got, ",") != want {
		t.Errorf("models asked for = %v, want %s", got, want)
	}

	// The user's /think: the whole turn is the skill's model's.
	e2 := newEnv(t)
	useCorpus(t, e2, "izteam")
	srv = e2.fake(scripted.Turn{ExpectContains: "# Structured Thinking", Text: "thought"})
	if out, stderr, code := e2.run("", "-p", "/think caching"); code != 0 || out != "thought\n" {
		t.Fatalf("exit %d %q\n%s", code, out, stderr)
	}
	if m, _, _ := requestFields(t, srv.Requests()[0].Body); m != "claude-opus-5-5" {
		t.Errorf("/think asked for %q", m)
	}
}

// An unknown skill model is reported and the session's model serves; "inherit" keeps it.
func TestSkillModelUnknownFallsBack(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "skills", "fable-skill", "SKILL.md"),
		"---\nname: fable-skill\ndescription: Tells fables\nmodel: fable\n---\nTell a fable.\n")
	srv := e.fake(scripted.Turn{ExpectContains: "Tell a fable", Text: "once upon a time"})
	out, stderr, code := e.run("", "-p", "/fable-skill")
	if code != 0 || out != "once upon a time\n" {
		t.Fatalf("exit %d %q\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, `skill fable-skill: model "fable" is neither an alias`) {
		t.Errorf("the unknown model was not reported:\n%s", stderr)
	}
	if m, _, _ := requestFields(t, srv.Requests()[0].Body); m != "claude-sonnet-5-5" {
		t.Errorf("asked for %q, want the session's model", m)
	}
}

// An agent's skills: gives its child each named skill's whole text from the start (and
// not the parent); a name no skill has is reported and the child starts without it.
func TestAgentPreloadsItsSkills(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "skills", "house-style", "SKILL.md"),
		"---\nname: house-style\ndescription: How Go is written here\n---\nHOUSE RULE: wrap errors with %w.\n")
	writeFile(t, filepath.Join(e.dir, ".claude", "agents", "go-reviewer.md"),
		"---\nname: go-reviewer\ndescription: Reviews Go changes\ntools: Read, Grep\nskills:\n  - house-style\n  - missing-skill\n---\nYou review Go code.\n")
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("go-reviewer", "review", "Review the change")}},
		scripted.Turn{ExpectContains: "HOUSE RULE: wrap errors with %w.", Text: "CHILD: reviewed"},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "review")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, `agent go-reviewer: skills: unknown skill "missing-skill"`) {
		t.Errorf("the missing skill was not reported:\n%s", stderr)
	}
	if strings.Contains(string(srv.Requests()[0].Body), "HOUSE RULE") {
		t.Error("the parent got the preloaded skill's text")
	}
}

// A subagent's skill model serves that subagent only: its parent's next request is the
// session's model's again.
func TestSubagentSkillModelStaysInTheSubagent(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "izteam")
	skillCall, _ := json.Marshal(map[string]string{"skill": "think", "args": "caching"})
	task, _ := json.Marshal(map[string]string{"description": "think", "prompt": "think about caching", "subagent_type": "general-purpose"})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Task", Input: task}}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: skillCall}}},
		scripted.Turn{ExpectContains: "# Structured Thinking", Text: "child thought"},
		scripted.Turn{ExpectContains: "child thought", Text: "parent done"},
	)
	out, stderr, code := e.run("", "-p", "delegate", "--model", "sonnet", "--permission-mode", "bypassPermissions")
	if code != 0 || !strings.Contains(out, "parent done") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var got []string
	for _, r := range srv.Requests() {
		m, _, _ := requestFields(t, r.Body)
		got = append(got, m)
	}
	if want := "claude-sonnet-5-5,claude-sonnet-5-5,claude-opus-5-5,claude-sonnet-5-5"; strings.Join(got, ",") != want {
		t.Errorf("models asked for = %v, want %s", got, want)
	}
}
