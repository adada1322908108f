//go:build unix

package main

import (
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// A fact stated in one session is extracted when it ends and recalled in the next
// session's first request; the secret said alongside it never reaches a memory file.
func TestMemoryAcrossSessionsThroughBinary(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		// Session 1 (interactive): the answer, then the extraction call at exit.
		scripted.Turn{Text: "Noted: deployments go through the staging cluster first."},
		scripted.Turn{ExpectContains: "[REDACTED]", Text: `{"memories": [
			{"name": "deploy-path", "description": "Deployments go through the staging cluster first", "type": "project", "body": "Staging first, then production."},
			{"name": "api-key", "description": "The API key is sk-ant-abcdefghijklmnopqrstuvwxyz0123456789", "type": "reference", "body": "sk-ant-abcdefghijklmnopqrstuvwxyz0123456789"}]}`},
		// Session 2 (headless): no recall call (issue 12, item 17); the matching record
		// rides along with the prompt.
		scripted.Turn{ExpectContains: "Staging first, then production.", Text: "Through staging first."},
	)
	out, stderr, code := e.run("We always deploy through the staging cluster first. My key is sk-ant-abcdefghijklmnopqrstuvwxyz0123456789\n/exit\n")
	if code != 0 || !strings.Contains(out, "remembered deploy-path") {
		t.Fatalf("session 1: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "[memory extraction: ") || !strings.Contains(stderr, " tokens, $") {
		t.Errorf("the extraction's cost is not shown:\n%s", stderr)
	}
	out, stderr, code = e.run("", "memory", "list")
	if code != 0 || !strings.Contains(out, "deploy-path") || strings.Contains(out, "sk-ant") || strings.Contains(out, "api-key") {
		t.Fatalf("memory list: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = e.run("", "-p", "how do we deploy?")
	if code != 0 || out != "Through staging first.\n" {
		t.Fatalf("session 2: exit %d\n%s\n%s", code, out, stderr)
	}
	if srv.Remaining() != 0 {
		t.Fatalf("%d steps left", srv.Remaining())
	}
}

// Headless runs save memories at the end only when memory.extractOnExit says so.
func TestHeadlessExtractOnExitSetting(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "The linter is golangci-lint."},
		scripted.Turn{Text: `{"memories": [{"name": "linter", "description": "The project lints with golangci-lint", "type": "project", "body": "Run it before commits."}]}`},
		scripted.Turn{Text: "second run, nothing saved"},
	)
	if out, stderr, code := e.run("", "-p", "which linter?", "--settings", `{"memory":{"extractOnExit":true}}`); code != 0 || !strings.Contains(stderr, "memory extraction saved 1 record(s) for") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if out, _, _ := e.run("", "memory", "list"); !strings.Contains(out, "linter") {
		t.Fatalf("memory list after an extracting run:\n%s", out)
	}
	// By default a headless run makes no extraction call.
	if out, stderr, code := e.run("", "-p", "again"); code != 0 || srv.Remaining() != 0 {
		t.Fatalf("exit %d, %d steps left\n%s\n%s", code, srv.Remaining(), out, stderr)
	}
}

// Recall meets a record through another form of its words (issue 30, item 22): a
// record saying code is "indented with tabs" rides along with "reformat the indentation
// of main.c", which shares no exact word with it (the old suffix stripper missed it).
func TestMemoryRecallByStemThroughBinary(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "Noted."},
		scripted.Turn{Text: `{"memories": [
			{"name": "style", "description": "Code here is indented with tabs", "type": "user", "body": "Indented with tabs, never spaces."}]}`},
		scripted.Turn{ExpectContains: "Indented with tabs, never spaces.", Text: "Tabs it is."},
	)
	if out, stderr, code := e.run("Our code is indented with tabs.\n/exit\n"); code != 0 || !strings.Contains(out, "remembered style") {
		t.Fatalf("session 1: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code := e.run("", "-p", "reformat the indentation of main.c")
	if code != 0 || out != "Tabs it is.\n" {
		t.Fatalf("session 2: exit %d\n%s\n%s", code, out, stderr)
	}
	if srv.Remaining() != 0 {
		t.Fatalf("%d steps left", srv.Remaining())
	}
}
