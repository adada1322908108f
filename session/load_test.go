package session

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

func writeLines(t *testing.T, path string, ls []string, trailingNewline bool) {
	t.Helper()
	s := strings.Join(ls, "\n")
	if trailingNewline {
		s += "\n"
	}
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSkipsTruncatedLastLine(t *testing.T) {
	w := newSession(t, llm.UserText("one"), assistant(llm.TextBlock("two")), llm.UserText("three"))
	w.Close()
	ls := lines(t, w.Path())
	ls[3] = ls[3][:len(ls[3])-7]
	writeLines(t, w.Path(), ls, false)

	tr := mustLoad(t, w.Path())
	if tr.Skipped != 1 || len(tr.Entries) != 3 {
		t.Fatalf("skipped %d, %d entries; want 1 and 3", tr.Skipped, len(tr.Entries))
	}
	if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], "line 4") || !strings.Contains(tr.Warnings[0], "truncated") {
		t.Errorf("warnings %q, want one about the truncated line 4", tr.Warnings)
	}
	msgs, _ := tr.Messages()
	if len(msgs) != 2 || msgs[1].Text() != "two" {
		t.Errorf("messages %s", mustJSON(t, msgs))
	}
}

func TestLoadAcceptsCompleteLastLineWithoutNewline(t *testing.T) {
	w := newSession(t, llm.UserText("one"))
	w.Close()
	writeLines(t, w.Path(), lines(t, w.Path()), false)
	tr := mustLoad(t, w.Path())
	if tr.Skipped != 0 || len(tr.Entries) != 2 {
		t.Errorf("skipped %d, %d entries; want 0 and 2", tr.Skipped, len(tr.Entries))
	}
}

func TestLoadSkipsCorruptMiddleLine(t *testing.T) {
	w := newSession(t,
		llm.UserText("list files"),
		assistant(toolUse("toolu_1", `{"command":"ls"}`)),
		user(result("toolu_1", "a.go")),
		assistant(llm.TextBlock("one file")),
	)
	w.Close()
	ls := lines(t, w.Path())
	ls[2] = `{"type":"assistant","uuid":` + "\x00garbage"
	writeLines(t, w.Path(), append(ls, "", "   "), true)

	tr := mustLoad(t, w.Path())
	if tr.Skipped != 1 || len(tr.Entries) != 4 {
		t.Fatalf("skipped %d, %d entries; want 1 and 4 (blank lines are not corrupt)", tr.Skipped, len(tr.Entries))
	}
	if !strings.Contains(tr.Warnings[0], "line 3") || !strings.Contains(tr.Warnings[0], "corrupt") {
		t.Errorf("warning %q, want one about corrupt line 3", tr.Warnings[0])
	}
	if tr.Entries[2].Line != 4 {
		t.Errorf("the entry after the corrupt line says it is on line %d, want 4", tr.Entries[2].Line)
	}
	// The lost line held the call; its result now answers nothing and must go.
	msgs, repairs := tr.Messages()
	if err := llm.ValidateConversation(msgs); err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(t, msgs); got != mustJSON(t, []llm.Message{llm.UserText("list files"), assistant(llm.TextBlock("one file"))}) {
		t.Errorf("messages %s", got)
	}
	if len(repairs) != 1 || repairs[0].Kind != RepairDroppedBlock || repairs[0].ToolUseID != "toolu_1" {
		t.Errorf("repairs %v", repairs)
	}
}

func TestLoadSkipsLinesThatAreNotEntries(t *testing.T) {
	w := newSession(t, llm.UserText("one"))
	w.Close()
	ls := lines(t, w.Path())
	ls = append(ls, `[1,2]`, `{"uuid":"x"}`, `{"type":"user","uuid":"y"}`, `"text"`)
	writeLines(t, w.Path(), ls, true)
	tr := mustLoad(t, w.Path())
	if tr.Skipped != 4 || len(tr.Warnings) != 4 || len(tr.Entries) != 2 {
		t.Errorf("skipped %d, warnings %q, entries %d; want 4 skipped and 2 entries", tr.Skipped, tr.Warnings, len(tr.Entries))
	}
}

func TestLoadKeepsUnknownEntryTypes(t *testing.T) {
	w := newSession(t, llm.UserText("one"))
	if err := w.AppendEntry("compaction", map[string]any{"summary": "we did things", "replaced": 12}); err != nil {
		t.Fatal(err)
	}
	if err := w.AppendMessage(assistant(llm.TextBlock("two"))); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ls := append(lines(t, w.Path()), `{"type":"from-the-future","uuid":"f1","sessionId":"s","data":{"x":[1,2]},"extra":true}`)
	writeLines(t, w.Path(), ls, true)

	tr := mustLoad(t, w.Path())
	if tr.Skipped != 0 {
		t.Fatalf("unknown types were skipped: %q", tr.Warnings)
	}
	var types []string
	for _, e := range tr.Entries {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, ","); got != "session,user,compaction,assistant,from-the-future" {
		t.Errorf("entry types %s", got)
	}
	var comp struct {
		Summary  string
		Replaced int
	}
	if err := json.Unmarshal(tr.Entries[2].Data, &comp); err != nil || comp.Summary != "we did things" || comp.Replaced != 12 {
		t.Errorf("compaction data %s (%v)", tr.Entries[2].Data, err)
	}
	if got := string(tr.Entries[4].Data); got != `{"x":[1,2]}` {
		t.Errorf("future data %s", got)
	}
	if msgs, _ := tr.Messages(); len(msgs) != 2 {
		t.Errorf("other entry types leaked into the messages: %s", mustJSON(t, msgs))
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(filepath.Join(dir, "nope.jsonl"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	writeLines(t, empty, nil, false)
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "empty") || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty file: %v, want an error naming the file and saying it is empty", err)
	}
	junk := filepath.Join(dir, "junk.jsonl")
	writeLines(t, junk, []string{"not json", `{"type":`}, false)
	if _, err := Load(junk); err == nil || !strings.Contains(err.Error(), "no readable entry") {
		t.Errorf("file of junk: %v, want 'no readable entry'", err)
	}
}

func TestLoadIDWithoutSessionLine(t *testing.T) {
	w := newSession(t, llm.UserText("one"))
	w.Close()
	ls := lines(t, w.Path())
	writeLines(t, w.Path(), ls[1:], true)
	tr := mustLoad(t, w.Path())
	if tr.ID != w.ID() || tr.Meta.Model != "" {
		t.Errorf("ID %q meta %+v; want the ID from the entries and no meta", tr.ID, tr.Meta)
	}
}
