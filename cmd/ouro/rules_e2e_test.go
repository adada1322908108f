//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

func readCall(path string) []scripted.ToolCall {
	in, _ := json.Marshal(map[string]string{"file_path": path})
	return []scripted.ToolCall{{Name: "Read", Input: in}}
}

// messagesText is every message of a request, tool results included, as one text.
func messagesText(r fakeserver.Recorded) string {
	return llm.RenderMessages(r.Messages, 0)
}

// rulesProject lays out a project with rules folders (a real public path-scoped rule
// among them), a nested CLAUDE.md and the hostile entries a rules folder may hold.
func rulesProject(t *testing.T, e *env) {
	t.Helper()
	real, err := os.ReadFile(filepath.Join("testdata", "rules", "golang-testing.md"))
	if err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(e.dir, ".claude", "rules")
	writeFile(t, filepath.Join(e.dir, "CLAUDE.md"), "ROOT-INSTRUCTIONS-1")
	writeFile(t, filepath.Join(rules, "style.md"), "ALWAYS-RULE-7")
	writeFile(t, filepath.Join(rules, "golang", "testing.md"), string(real))
	writeFile(t, filepath.Join(rules, "bad.md"), "---\npaths: \"src/[x\"\n---\nNEVER-RULE")
	writeFile(t, filepath.Join(rules, "blob.md"), "\x7fELF\x00\x00\x00binary")
	writeFile(t, filepath.Join(e.home, ".claude", "rules", "mine.md"), "USER-RULE-3")
	writeFile(t, filepath.Join(e.dir, "pkg", "CLAUDE.md"), "PKG-NESTED-5")
	writeFile(t, filepath.Join(e.dir, "pkg", "a.go"), "package pkg\n")
	writeFile(t, filepath.Join(e.dir, "pkg", "b.go"), "package pkg\n")
	for name, target := range map[string]string{"loop": ".", "root": "/"} {
		if err := os.Symlink(target, filepath.Join(rules, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 13, item 15: .claude/rules and ~/.claude/rules load as Claude Code loads them.
// Rules without paths: are in the system prompt; a path-scoped rule (a real public one,
// whose unquoted comma-separated globs strict YAML rejects) and a nested CLAUDE.md arrive
// as one reminder when the agent first reads a matching file, once, and the system
// prompt never changes. A resumed session does not add them again. A symlink loop, a
// link to /, a binary rule and an invalid glob are each named once on stderr.
func TestRulesAndNestedInstructionsThroughBinary(t *testing.T) {
	e := newEnv(t)
	rulesProject(t, e)
	srv := e.fake(
		scripted.Turn{ToolCalls: readCall(filepath.Join(e.dir, "README.md"))}, // missing: an error, brings nothing
		scripted.Turn{ToolCalls: readCall(filepath.Join(e.dir, "pkg", "a.go"))},
		scripted.Turn{ExpectContains: "table-driven tests", ToolCalls: readCall(filepath.Join(e.dir, "pkg", "b.go"))},
		scripted.Turn{Text: "done"},
		// The resumed session reads the file again.
		scripted.Turn{ToolCalls: readCall("pkg/a.go")},
		scripted.Turn{Text: "done again"},
	)
	out, stderr, code := e.run("", "-p", "work on pkg")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	reqs := srv.Requests()
	_, _, system := requestFields(t, reqs[0].Body)
	for _, want := range []string{"ROOT-INSTRUCTIONS-1", "ALWAYS-RULE-7", "USER-RULE-3"} {
		if !strings.Contains(system, want) {
			t.Errorf("the system prompt lacks %s", want)
		}
	}
	for _, not := range []string{"table-driven", "PKG-NESTED-5", "NEVER-RULE", "ELF"} {
		if strings.Contains(system, not) || strings.Contains(messagesText(reqs[0]), not) {
			t.Errorf("the first request holds %s", not)
		}
	}
	if strings.Contains(messagesText(reqs[1]), "table-driven") {
		t.Errorf("a failed read of README.md brought the Go rule")
	}
	for i, r := range reqs {
		if _, _, s := requestFields(t, r.Body); s != system {
			t.Errorf("request %d: the system prompt changed", i)
		}
	}
	last := messagesText(reqs[3])
	for _, want := range []string{"table-driven tests", "PKG-NESTED-5"} {
		if n := strings.Count(last, want); n != 1 {
			t.Errorf("%s is in the conversation %d times, want 1", want, n)
		}
	}
	if !strings.Contains(last, "<system-reminder>") {
		t.Errorf("the rule did not come as a system reminder")
	}
	for _, want := range []string{`src/[x`, "blob.md skipped", "root skipped"} {
		if strings.Count(stderr, want) != 1 {
			t.Errorf("stderr should name %q once:\n%s", want, stderr)
		}
	}

	out, stderr, code = e.run("", "--continue", "-p", "read it again")
	if code != 0 || out != "done again\n" {
		t.Fatalf("resume: exit %d, out %q\n%s", code, out, stderr)
	}
	reqs = srv.Requests()
	final := messagesText(reqs[len(reqs)-1])
	for _, want := range []string{"table-driven tests", "PKG-NESTED-5"} {
		if n := strings.Count(final, want); n != 1 {
			t.Errorf("after resume %s is in the conversation %d times, want 1", want, n)
		}
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d steps left", srv.Remaining())
	}
}

// After a summary the rules it dropped are given again on the next read that needs
// them, once.
func TestRulesComeBackAfterCompaction(t *testing.T) {
	e := newEnv(t)
	rulesProject(t, e)
	srv := e.fake(
		scripted.Turn{ToolCalls: readCall(filepath.Join(e.dir, "pkg", "a.go"))},
		scripted.Turn{ExpectContains: "PKG-NESTED-5", Text: "read"},
		scripted.Turn{ExpectContains: "Here is the session so far", Text: "Summary: pkg/a.go was read."},
		scripted.Turn{ToolCalls: readCall(filepath.Join(e.dir, "pkg", "b.go"))},
		scripted.Turn{ExpectContains: "PKG-NESTED-5", Text: "again"},
	)
	// A REPL session: the first prompt, /compact, then a second prompt.
	out, stderr, code := e.run("first\n/compact\nsecond\n/exit\n", "--settings", `{"memory":{"extractOnExit":false}}`)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	reqs := srv.Requests()
	if srv.Remaining() != 0 || len(reqs) != 5 {
		t.Fatalf("%d requests, %d steps left\n%s\n%s", len(reqs), srv.Remaining(), out, stderr)
	}
	if n := strings.Count(messagesText(reqs[4]), "PKG-NESTED-5"); n != 1 {
		t.Errorf("after the summary the nested file is in the conversation %d times, want 1", n)
	}
}
