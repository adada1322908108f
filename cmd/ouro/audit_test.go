//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/permission"
)

// Two headless sessions, then `ouro audit` in its forms: the first session's write is
// refused (default mode, nobody to ask) and its read-only Bash command allowed and run;
// the second runs ls.
func TestAuditShowsDecisionsAndRuns(t *testing.T) {
	e := newEnv(t)
	_, stderr, _ := e.run("", "audit")
	if !strings.Contains(stderr, filepath.Join(e.home, ".ouro", "projects")) || !strings.Contains(stderr, "after the first run") {
		t.Fatalf("no log yet: stderr %q", stderr)
	}

	target := filepath.Join(e.dir, "notes.txt")
	write, _ := json.Marshal(map[string]string{"file_path": target, "content": "hi\n"})
	e.fake(
		scripted.Turn{ToolCalls: append([]scripted.ToolCall{{Name: "Write", Input: write}}, bash("cat go.mod")...)},
		scripted.Turn{ExpectContains: "module example.com/demo", Text: "Read it, could not write."},
		scripted.Turn{ToolCalls: bash("ls")},
		scripted.Turn{Text: "Listed."},
	)
	first := headlessSession(t, e, "write notes")
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("the refused write happened: %v", err)
	}
	second := headlessSession(t, e, "list")

	out, stderr, code := e.run("", "audit")
	if code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"session " + first + "  3 records  \"write notes\"\n",
		"session " + second + "  2 records  \"list\"\n",
		"deny      Write      " + target + "  [headless]  headless run: Write " + target + " would need approval",
		"allow     Bash       cat go.mod  [read-only command]",
		"run       Bash       ok toolu_01_02 in ",
		"allow     Bash       ls  [read-only command]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit output lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, first) > strings.Index(out, second) || strings.Index(out, "cat go.mod") > strings.Index(out, second) {
		t.Errorf("records are not grouped under their session, in order:\n%s", out)
	}

	// One session, by prefix: the other's records are left out.
	out, stderr, code = e.run("", "audit", second[:8])
	if code != 0 || !strings.Contains(out, "session "+second) || strings.Contains(out, first) || strings.Contains(out, "cat go.mod") ||
		!strings.Contains(out, "run       Bash       ok toolu_03_01") {
		t.Fatalf("audit %s: exit %d\n%s\n%s", second[:8], code, out, stderr)
	}

	// A bad ID fails as --resume does.
	out, stderr, code = e.run("", "audit", "nope")
	if code == 0 || out != "" || !strings.Contains(stderr, `find session "nope": no session with that ID`) || !strings.Contains(stderr, first) {
		t.Fatalf("bad ID: exit %d, out %q, stderr %q", code, out, stderr)
	}

	// --json: every line is a record; together they are the whole log.
	out, stderr, code = e.run("", "audit", "--json")
	if code != 0 {
		t.Fatalf("audit --json: exit %d\n%s", code, stderr)
	}
	recs := parseRecords(t, out)
	if len(recs) != 5 {
		t.Fatalf("--json gave %d records, want 5:\n%s", len(recs), out)
	}
	d := recs[0]
	if d.Kind != permission.AuditDecision || d.Session != first || d.Tool != "Write" || d.Decision != "deny" || d.Source != "headless" || d.Input != target {
		t.Errorf("first record = %+v", d)
	}
	r := recs[2]
	if r.Kind != permission.AuditRun || r.Tool != "Bash" || r.Status != "ok" || r.Input != "cat go.mod" || r.ToolUseID != "toolu_01_02" {
		t.Errorf("third record = %+v", r)
	}

	// --tail counts records after the session filter.
	out, _, code = e.run("", "audit", "--json", "--tail", "2", first)
	if recs := parseRecords(t, out); code != 0 || len(recs) != 2 || recs[0].Input != "cat go.mod" || recs[1].Kind != permission.AuditRun {
		t.Fatalf("--tail 2 %s: exit %d\n%s", first, code, out)
	}
	out, _, code = e.run("", "audit", "--tail", "1")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(out, "session "+second+"  1 record  ") {
		t.Fatalf("--tail 1: exit %d\n%s", code, out)
	}
	if _, stderr, code = e.run("", "audit", "--tail", "-1"); code == 0 || !strings.Contains(stderr, "--tail") {
		t.Fatalf("--tail -1: exit %d, %s", code, stderr)
	}
}

// A damaged line is reported, with its number, after the records that could be read.
func TestAuditReportsDamagedLines(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{ToolCalls: bash("pwd")}, scripted.Turn{Text: "ok"})
	id := headlessSession(t, e, "where")
	logs, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "audit.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("audit logs: %v", logs)
	}
	f, err := os.OpenFile(logs[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n")
	f.Close()
	out, stderr, code := e.run("", "audit")
	if code == 0 || !strings.Contains(out, "session "+id) || !strings.Contains(out, "pwd  [read-only command]") || !strings.Contains(stderr, "line 3") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}

// headlessSession runs one prompt headless and returns the session's ID.
func headlessSession(t *testing.T, e *env, prompt string) string {
	t.Helper()
	out, stderr, code := e.run("", "-p", prompt, "--output-format", "json")
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("-p %q: exit %d, %v\n%s\n%s", prompt, code, err, out, stderr)
	}
	id, _ := res["session_id"].(string)
	if len(id) < 8 {
		t.Fatalf("session_id = %v", res["session_id"])
	}
	return id
}

// parseRecords reads JSON lines of audit records, failing on any line that is not one.
func parseRecords(t *testing.T, out string) []permission.AuditRecord {
	t.Helper()
	var recs []permission.AuditRecord
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var r permission.AuditRecord
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("--json line is not an audit record: %v\n%s", err, line)
		}
		recs = append(recs, r)
	}
	return recs
}
