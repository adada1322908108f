package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ouroagent/ouro/llm"
)

func roundTripConversation() []llm.Message {
	img := &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}
	return []llm.Message{
		user(llm.TextBlock("fix the <b>&amp;</b> bug ✓\nin \"main.go\""), llm.Block{Type: llm.BlockImage, Source: img}),
		assistant(
			llm.Block{Type: llm.BlockThinking, Thinking: "look at main.go first", Signature: "sig=="},
			llm.TextBlock("Reading it."),
			llm.ToolUseBlock("toolu_01", "Read", json.RawMessage(`{"file_path":"/work/proj/main.go"}`)),
			llm.ToolUseBlock("toolu_02", "Bash", json.RawMessage(`{"command":"go test ./... 2>&1 | head -n 5 && echo <done>"}`)),
		),
		user(
			llm.Block{Type: llm.BlockToolResult, ToolUseID: "toolu_01", Content: []llm.Block{llm.TextBlock("package main\n"), {Type: llm.BlockImage, Source: img}}},
			llm.ToolResultBlock("toolu_02", "FAIL\texample\t0.01s", true),
		),
		assistant(llm.Block{Type: llm.BlockRedactedThinking, Data: "opaque"}, llm.TextBlock("Fixed.")),
	}
}

func TestRoundTripKeepsMessagesByteIdentical(t *testing.T) {
	want := roundTripConversation()
	w := newSession(t, want...)
	outcome := json.RawMessage(`{"status":"completed","turns":2,"usage":{"input_tokens":10},"cost_usd":0.0012}`)
	if err := w.AppendEntry(TypeOutcome, outcome); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	tr := mustLoad(t, w.Path())
	if tr.Skipped != 0 || len(tr.Warnings) != 0 {
		t.Fatalf("clean file: skipped %d, warnings %q", tr.Skipped, tr.Warnings)
	}
	got, repairs := tr.Messages()
	if len(repairs) != 0 {
		t.Errorf("clean conversation was repaired: %v", repairs)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := mustJSON(t, got[i]), mustJSON(t, want[i]); g != w {
			t.Errorf("message %d changed on the way through the file:\n got %s\nwant %s", i, g, w)
		}
	}
	if in := got[1].Content[3].Input; !bytes.Equal(in, want[1].Content[3].Input) {
		t.Errorf("tool input bytes changed: %s", in)
	}
	if err := llm.ValidateConversation(got); err != nil {
		t.Error(err)
	}

	last := tr.Entries[len(tr.Entries)-1]
	if last.Type != TypeOutcome || mustJSON(t, last.Data) != string(outcome) {
		t.Errorf("outcome entry = %s %s, want %s", last.Type, last.Data, outcome)
	}
	if tr.ID != w.ID() || tr.Meta.ID != w.ID() || tr.Meta.Model != "test-model" || tr.Meta.CWD != "/work/proj" || tr.Meta.Version != "0.0.1-test" {
		t.Errorf("meta read back as %+v (ID %q), want the writer's", tr.Meta, tr.ID)
	}
}

func TestLinesAreClaudeCodeShaped(t *testing.T) {
	w := newSession(t, llm.UserText("hi"))
	before := time.Now().UTC()
	if err := w.AppendMessage(assistant(llm.TextBlock("hello"))); err != nil {
		t.Fatal(err)
	}
	var first, second, third map[string]any
	ls := lines(t, w.Path())
	if len(ls) != 3 {
		t.Fatalf("want 3 lines, got %d: %q", len(ls), ls)
	}
	for i, dst := range []*map[string]any{&first, &second, &third} {
		if err := json.Unmarshal([]byte(ls[i]), dst); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	if first["type"] != "session" || first["parentUuid"] != nil {
		t.Errorf("first line: type %v parentUuid %v, want session and null", first["type"], first["parentUuid"])
	}
	data, _ := first["data"].(map[string]any)
	for _, k := range []string{"model", "cwd", "version", "created"} {
		if data[k] == nil {
			t.Errorf("session data lacks %q: %s", k, ls[0])
		}
	}
	if second["parentUuid"] != first["uuid"] || third["parentUuid"] != second["uuid"] {
		t.Errorf("parentUuid does not chain: %v→%v, %v→%v", first["uuid"], second["parentUuid"], second["uuid"], third["parentUuid"])
	}
	for _, l := range []map[string]any{first, second, third} {
		if l["sessionId"] != w.ID() || l["cwd"] != "/work/proj" {
			t.Errorf("sessionId %v cwd %v, want %s /work/proj", l["sessionId"], l["cwd"], w.ID())
		}
		if _, err := uuid.Parse(l["uuid"].(string)); err != nil {
			t.Errorf("uuid %v: %v", l["uuid"], err)
		}
	}
	ts, _ := third["timestamp"].(string)
	parsed, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil || !strings.HasSuffix(ts, "Z") || parsed.Before(before.Truncate(time.Second)) {
		t.Errorf("timestamp %q: want RFC3339Nano UTC, not before %s (err %v)", ts, before, err)
	}
	msg, _ := third["message"].(map[string]any)
	if third["type"] != "assistant" || msg["role"] != "assistant" {
		t.Errorf("assistant line: %s", ls[2])
	}
}

func TestCreateGeneratesUUIDv4AndSideDir(t *testing.T) {
	project := t.TempDir()
	w, err := Create(project, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	id, err := uuid.Parse(w.ID())
	if err != nil || id.Version() != 4 {
		t.Fatalf("ID %q is not a UUID v4 (%v)", w.ID(), err)
	}
	if want := filepath.Join(project, "sessions", w.ID()+".jsonl"); w.Path() != want {
		t.Errorf("Path = %q, want %q", w.Path(), want)
	}
	if want := filepath.Join(project, "sessions", w.ID()); w.Dir() != want {
		t.Errorf("Dir = %q, want %q", w.Dir(), want)
	}
	if _, err := os.Stat(w.Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the side folder exists before anything was written into it (%v)", err)
	}
}

func TestCreateRefusesExistingAndUnsafeIDs(t *testing.T) {
	project := t.TempDir()
	w, err := Create(project, Meta{ID: "4f6c1a2e-0000-4000-8000-000000000001"})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	_, err = Create(project, Meta{ID: w.ID()})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second Create with the same ID: %v, want an 'already exists' error", err)
	}
	if tr := mustLoad(t, w.Path()); len(tr.Entries) != 1 {
		t.Errorf("the existing transcript was touched: %d entries", len(tr.Entries))
	}
	for _, id := range []string{"../escape", "a/b", ".hidden", "x y"} {
		if _, err := Create(project, Meta{ID: id}); err == nil {
			t.Errorf("Create accepted the ID %q", id)
		}
	}
}

func TestAppendRejectsWhatIsNotAnEntry(t *testing.T) {
	w := newSession(t)
	if err := w.AppendMessage(llm.Message{Role: "system", Content: []llm.Block{llm.TextBlock("x")}}); err == nil {
		t.Error("AppendMessage accepted role system")
	}
	for _, typ := range []string{"", TypeUser, TypeAssistant} {
		if err := w.AppendEntry(typ, map[string]int{"a": 1}); err == nil {
			t.Errorf("AppendEntry accepted type %q", typ)
		}
	}
	if err := w.AppendEntry("todo", json.RawMessage(`{"broken`)); err == nil {
		t.Error("AppendEntry accepted invalid raw JSON")
	}
	if n := len(lines(t, w.Path())); n != 1 {
		t.Errorf("rejected entries reached the file: %d lines", n)
	}
	if err := w.AppendEntry("todo", map[string]int{"a": 1}); err != nil {
		t.Errorf("after a rejected entry the writer must go on: %v", err)
	}
}

func TestClosedWriter(t *testing.T) {
	w := newSession(t)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.AppendMessage(llm.UserText("late")); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("append after Close: %v, want a 'closed' error", err)
	}
	if err := w.Sync(); err == nil {
		t.Error("Sync after Close succeeded")
	}
}

func TestInvalidToolInputIsStoredAsText(t *testing.T) {
	cut := `{"command":"rm -rf bu`
	m := assistant(llm.TextBlock("cleaning"), toolUse("toolu_cut", cut))
	w := newSession(t, llm.UserText("clean"), m)
	if string(m.Content[1].Input) != cut {
		t.Fatal("AppendMessage modified the caller's message")
	}
	tr := mustLoad(t, w.Path())
	var stored string
	if err := json.Unmarshal(tr.Entries[2].Message.Content[1].Input, &stored); err != nil || stored != cut {
		t.Errorf("stored input %s, want the raw text %q as a JSON string (%v)", tr.Entries[2].Message.Content[1].Input, cut, err)
	}
}

func TestOpenAppendContinuesTheChain(t *testing.T) {
	w := newSession(t, llm.UserText("first"))
	w.Close()
	before := mustLoad(t, w.Path())

	w2, err := OpenAppend(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if w2.ID() != w.ID() || w2.Dir() != w.Dir() {
		t.Errorf("reopened as %s %s, want %s %s", w2.ID(), w2.Dir(), w.ID(), w.Dir())
	}
	if err := w2.AppendMessage(assistant(llm.TextBlock("second"))); err != nil {
		t.Fatal(err)
	}
	after := mustLoad(t, w.Path())
	added := after.Entries[len(after.Entries)-1]
	if added.ParentUUID != before.Entries[len(before.Entries)-1].UUID {
		t.Errorf("new entry's parent %q, want the last old entry %q", added.ParentUUID, before.Entries[len(before.Entries)-1].UUID)
	}
	if added.SessionID != w.ID() || added.CWD != "/work/proj" {
		t.Errorf("new entry sessionId %q cwd %q", added.SessionID, added.CWD)
	}
}

func TestOpenAppendAfterTornLine(t *testing.T) {
	w := newSession(t, llm.UserText("first"))
	w.Close()
	whole := lines(t, w.Path())
	f, err := os.OpenFile(w.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(whole[1][:len(whole[1])/2]); err != nil { // a write cut by a crash
		t.Fatal(err)
	}
	f.Close()

	w2, err := OpenAppend(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.AppendMessage(assistant(llm.TextBlock("after the crash"))); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	tr := mustLoad(t, w.Path())
	if tr.Skipped != 1 || len(tr.Entries) != 3 {
		t.Fatalf("skipped %d, entries %d (warnings %q); want the torn line alone skipped and 3 entries", tr.Skipped, len(tr.Entries), tr.Warnings)
	}
	if got := tr.Entries[2].Message.Text(); got != "after the crash" {
		t.Errorf("the entry after the torn line reads %q", got)
	}
	if tr.Entries[2].ParentUUID != tr.Entries[1].UUID {
		t.Error("the entry after the torn line does not chain to the last readable one")
	}
}

func TestOpenAppendErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing.jsonl"), empty, filepath.Join(dir, "notes.txt")} {
		if w, err := OpenAppend(p); err == nil {
			w.Close()
			t.Errorf("OpenAppend(%s) succeeded", p)
		}
	}
}

func TestConcurrentAppends(t *testing.T) {
	w := newSession(t)
	const writers, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				var err error
				switch {
				case i%10 == 9:
					err = w.Sync()
				case i%2 == 0:
					err = w.AppendMessage(llm.UserText(fmt.Sprintf("g%d-%d", g, i)))
				default:
					err = w.AppendEntry("progress", map[string]int{"g": g, "i": i})
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tr := mustLoad(t, w.Path())
	if tr.Skipped != 0 {
		t.Fatalf("interleaved writes corrupted lines: %q", tr.Warnings)
	}
	const syncs = writers * (each / 10)
	if got, want := len(tr.Entries), 1+writers*each-syncs; got != want {
		t.Fatalf("%d entries, want %d", got, want)
	}
	seen := map[string]bool{}
	for i, e := range tr.Entries {
		if i > 0 && e.ParentUUID != tr.Entries[i-1].UUID {
			t.Fatalf("entry %d chains to %q, not to the entry before it %q", i, e.ParentUUID, tr.Entries[i-1].UUID)
		}
		if e.Message != nil {
			seen[e.Message.Text()] = true
		}
	}
	for g := range writers {
		for i := 0; i < each; i += 2 {
			if !seen[fmt.Sprintf("g%d-%d", g, i)] {
				t.Errorf("message g%d-%d is missing", g, i)
			}
		}
	}
}

func BenchmarkAppendMessage(b *testing.B) {
	w, err := Create(b.TempDir(), Meta{Model: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	m := assistant(
		llm.TextBlock(strings.Repeat("I will look at the failing test and fix it. ", 20)),
		llm.ToolUseBlock("toolu_bench", "Bash", json.RawMessage(`{"command":"go test ./... -run TestX -count=1","timeout":120000}`)),
	)
	b.ReportAllocs()
	for b.Loop() {
		if err := w.AppendMessage(m); err != nil {
			b.Fatal(err)
		}
	}
}

// A failed write (a full disk) is the writer's last: later appends fail with its error
// even when the disk would take them, so the transcript never has a hole, and what was
// written before stays whole and loadable, a torn last line included.
func TestNothingIsWrittenAfterAFailedWrite(t *testing.T) {
	w := newSession(t, llm.UserText("one"))
	good := w.f
	ro, err := os.Open(w.Path()) // writes through it fail, as on a full disk
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	w.f = ro
	err = w.AppendMessage(assistant(llm.TextBlock("lost")))
	if err == nil {
		t.Fatal("a write to a read-only file succeeded")
	}
	// Part of the failed line reached the disk before it filled.
	if _, err := good.Write([]byte(`{"type":"assistant","uuid":"torn`)); err != nil {
		t.Fatal(err)
	}
	w.f = good
	for _, appendOne := range []func() error{
		func() error { return w.AppendMessage(assistant(llm.TextBlock("two"))) },
		func() error { return w.AppendEntry("outcome", map[string]string{"status": "completed"}) },
	} {
		if err2 := appendOne(); err2 == nil || !strings.Contains(err2.Error(), "nothing more is written after a failed write") || !strings.Contains(err2.Error(), err.Error()) {
			t.Fatalf("an append after the failed write: %v", err2)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr := mustLoad(t, w.Path())
	if len(tr.Entries) != 2 || tr.Entries[1].Message.Text() != "one" || tr.Skipped != 1 {
		t.Fatalf("after a failed write: %d entries, %d skipped, warnings %q", len(tr.Entries), tr.Skipped, tr.Warnings)
	}
	// The session continues from its whole prefix once there is room.
	w2, err := OpenAppend(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.AppendMessage(assistant(llm.TextBlock("two"))); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	tr = mustLoad(t, w.Path())
	if n := len(tr.Entries); n != 3 || tr.Entries[2].ParentUUID != tr.Entries[1].UUID {
		t.Fatalf("continued: %d entries", n)
	}
}

// TestCreateFile: a transcript created at a path is named by its file, loads like any
// session, and a second one at the same path fails with fs.ErrExist.
func TestCreateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "general-purpose-x1.jsonl")
	w, err := CreateFile(path, Meta{Model: "m1", CWD: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tr.ID != "general-purpose-x1" || tr.Meta.Model != "m1" || tr.Meta.CWD != "/work" || tr.Meta.Created.IsZero() {
		t.Errorf("loaded %q %+v", tr.ID, tr.Meta)
	}
	if msgs, _ := tr.Messages(); len(msgs) != 1 || msgs[0].Content[0].Text != "hi" {
		t.Errorf("messages %+v", msgs)
	}
	if _, err := CreateFile(path, Meta{}); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second CreateFile: %v, want fs.ErrExist", err)
	}
	if _, err := CreateFile(filepath.Join(t.TempDir(), "x.json"), Meta{}); err == nil {
		t.Error("a name without .jsonl was accepted")
	}
}
