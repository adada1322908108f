//go:build unix

package session

import (
	"errors"
	"reflect"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// A transcript has one writer at a time: a second OpenAppend (another process continuing
// the same session) is refused with ErrInUse until the first writer closes.
func TestOneWriterPerTranscript(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Meta{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAppend(w.Path()); !errors.Is(err, ErrInUse) {
		t.Fatalf("second writer while the first is open: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, err := OpenAppend(w.Path())
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	if _, err := OpenAppend(w.Path()); !errors.Is(err, ErrInUse) {
		t.Fatalf("third writer while the second is open: %v", err)
	}
	_ = w2.Close()
}

// A fork continues the same conversation and state under a new ID and names its origin;
// the original is left as it was.
func TestForkCopiesTheSession(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Meta{Model: "m", CWD: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	call := llm.ToolUseBlock("toolu_1", "Bash", []byte(`{"command":"ls"}`))
	for _, m := range []llm.Message{
		llm.UserText("hi"),
		{Role: llm.RoleAssistant, Content: []llm.Block{call}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "toolu_1", Content: []llm.Block{llm.TextBlock("a.go")}}}},
	} {
		if err := w.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AppendEntry("todo", map[string]any{"todos": []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	orig, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fork(dir, orig, Meta{Model: "m", CWD: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.ID() == orig.ID {
		t.Fatal("the fork kept the original's ID")
	}
	forked, err := Load(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if forked.Meta.ForkedFrom != orig.ID {
		t.Errorf("forked_from = %q", forked.Meta.ForkedFrom)
	}
	a, _ := orig.Messages()
	b, _ := forked.Messages()
	if !reflect.DeepEqual(a, b) {
		t.Errorf("messages differ:\n%+v\n%+v", a, b)
	}
	if last := forked.Entries[len(forked.Entries)-1]; last.Type != "todo" || last.SessionID != f.ID() {
		t.Errorf("last entry = %+v", last)
	}
	_ = w.Close()
}
