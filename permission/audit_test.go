package permission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/tool"
)

func TestAuditAppendAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proj", "audit.jsonl")
	a, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	a.SetSession("sess-1")
	call := tool.Call{ID: "toolu_1", Name: "Write", Input: json.RawMessage(`{"file_path":"/p/a.go","content":"x"}`)}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	a.RecordDecision(call, "allow", "mode acceptEdits", "acceptEdits mode allows edits inside the workspace")
	a.RecordRun(call, "ok", 1500*time.Millisecond)
	a.RecordFileChange("/p/a.go", "", "sha256:abc")
	must(a.Err())
	must(a.Close())

	// A second process appends to the same file.
	b, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	b.RecordRun(tool.Call{ID: "toolu_2", Name: "Bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}, "error", 20*time.Millisecond)
	must(b.Err())
	must(b.Close())
	b.RecordRun(call, "ok", 0)
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("a closed audit accepted a record: %v", err)
	}

	recs, err := ReadAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("records = %+v", recs)
	}
	if r := recs[0]; r.Kind != AuditDecision || r.Session != "sess-1" || r.Input != "/p/a.go" || r.Decision != "allow" || r.Source != "mode acceptEdits" {
		t.Errorf("decision = %+v", r)
	}
	if r := recs[1]; r.Kind != AuditRun || r.Status != "ok" || r.DurationMS != 1500 || r.ToolUseID != "toolu_1" {
		t.Errorf("run = %+v", r)
	}
	if r := recs[2]; r.Kind != AuditFile || r.Path != "/p/a.go" || r.HashBefore != "" || r.HashAfter != "sha256:abc" {
		t.Errorf("file = %+v", r)
	}
	if r := recs[3]; r.Session != "" || r.Input != "go test ./..." || r.Status != "error" {
		t.Errorf("second writer's run = %+v", r)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("audit mode %v: it may hold commands and paths, keep it private", st.Mode().Perm())
	}

	// Readable lines for `ouro audit`, records of other kinds included.
	hookRec := AuditRecord{Kind: "hook", Tool: "PreToolUse", Source: "check.sh", Status: "blocked", DurationMS: 30, Reason: "no"}
	lines := []string{recs[0].String(), recs[1].String(), recs[2].String(), hookRec.String()}
	for i, want := range []string{"allow     Write      /p/a.go  [mode acceptEdits]", "run       Write      ok toolu_1 in 1.5s", "file      /p/a.go (none) → sha256:abc", "hook      PreToolUse blocked in 30ms  [check.sh]  no"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %q lacks %q", lines[i], want)
		}
	}
}

func TestReadAuditDamage(t *testing.T) {
	dir := t.TempDir()
	good := `{"time":"2026-01-01T00:00:00Z","kind":"run","tool":"Bash","status":"ok"}`

	torn := filepath.Join(dir, "torn.jsonl")
	os.WriteFile(torn, []byte(good+"\n"+good+"\n"+`{"time":"2026-01-01T00:0`), 0o600)
	recs, err := ReadAudit(torn)
	if err != nil || len(recs) != 2 {
		t.Errorf("a torn last line: %d records, err %v", len(recs), err)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(good+"\nnot json\n\n"+good+"\n"), 0o600)
	recs, err = ReadAudit(bad)
	if len(recs) != 2 || err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad middle line: %d records, err %v", len(recs), err)
	}

	if _, err := ReadAudit(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("a missing audit read without error")
	}
}

func TestAuditConcurrentWritersKeepLinesWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				c := tool.Call{ID: fmt.Sprintf("t%d-%d", i, j), Name: "Bash", Input: json.RawMessage(`{"command":"` + strings.Repeat("x", 3000) + `"}`)}
				a.RecordDecision(c, "allow", "test", "")
			}
		}()
	}
	wg.Wait()
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	a.Close()
	recs, err := ReadAudit(path)
	if err != nil || len(recs) != 200 {
		t.Errorf("%d records, err %v", len(recs), err)
	}
}

func TestNilAuditRecordsNothing(t *testing.T) {
	var a *Audit
	a.RecordDecision(tool.Call{}, "allow", "", "")
	a.SetSession("x")
	a.OnFailure(func(error) { t.Error("a nil audit failed") })
	if a.Path() != "" || a.Close() != nil || a.Err() != nil {
		t.Error("nil audit")
	}
}

// A full disk loses records but stops nothing: the first failure is kept and told once,
// however many records fail after it, and every kind of record reports it.
func TestAuditReportsAFailedWriteOnce(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full to stand for a full disk")
	}
	call := tool.Call{ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}
	for name, record := range map[string]func(*Audit){
		"decision": func(a *Audit) { a.RecordDecision(call, "allow", "read-only command", "") },
		"run":      func(a *Audit) { a.RecordRun(call, "ok", time.Second) },
		"file":     func(a *Audit) { a.RecordFileChange("/p/a.go", "", "sha256:abc") },
		"hook":     func(a *Audit) { a.Record(AuditRecord{Kind: "hook", Tool: "PreToolUse", Status: "success"}) },
	} {
		t.Run(name, func(t *testing.T) {
			a, err := OpenAudit("/dev/full")
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			var told []error
			a.OnFailure(func(err error) { told = append(told, err) })
			record(a)
			record(a)
			a.RecordDecision(call, "deny", "user: no", "")
			if len(told) != 1 || !strings.Contains(told[0].Error(), "/dev/full") || !strings.Contains(told[0].Error(), "no space left") {
				t.Fatalf("told %v, want the first failure once", told)
			}
			if a.Err() != told[0] {
				t.Errorf("Err = %v, want the first failure", a.Err())
			}
		})
	}
}

func TestFileHash(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if h, err := FileHash(p); h != "" || err != nil {
		t.Errorf("missing file: %q %v", h, err)
	}
	os.WriteFile(p, []byte("abc"), 0o644)
	h, err := FileHash(p)
	if err != nil || h != "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("hash = %q %v", h, err)
	}
}

func TestSummarizeInput(t *testing.T) {
	cases := map[string]string{
		`{"command":"ls  -la\n"}`:                        "ls -la",
		`{"file_path":"/a/b"}`:                           "/a/b",
		`{"url":"https://x.org"}`:                        "https://x.org",
		`{"pattern":"*.go","path":"src"}`:                "*.go src",
		`{"todos":[]}`:                                   `{"todos":[]}`,
		`{"command":"` + strings.Repeat("y", 600) + `"}`: strings.Repeat("y", 497) + "…", // 500 bytes with the marker
		`{"command":"echo abcde` + strings.Repeat("代理👍🏽", 50) + `"}`: "echo abcde" + strings.Repeat("代理👍🏽", 34) + "代理…", // the cut falls in the thumb's skin tone: both go
	}
	for in, want := range cases {
		if got := SummarizeInput(tool.Call{Input: json.RawMessage(in)}); got != want {
			t.Errorf("SummarizeInput(%s) = %q, want %q", in, got, want)
		}
	}
}
