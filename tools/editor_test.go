package tools

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// buffers is an editor with files open in it: their text may differ from the disk. It
// saves a write to the disk only when save is set.
type buffers struct {
	mu          sync.Mutex
	text        map[string]string
	read, write bool
	save        func(path, text string)
	writes      []string
}

func (b *buffers) ReadText(_ context.Context, path string) (string, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.read {
		return "", false, nil
	}
	t, ok := b.text[path]
	if !ok {
		return "", false, nil
	}
	return t, true, nil
}

func (b *buffers) WriteText(_ context.Context, path, text string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.write {
		return false, nil
	}
	b.text[path] = text
	b.writes = append(b.writes, path)
	if b.save != nil {
		b.save(path, text)
	}
	return true, nil
}

// Read shows, and Edit changes, the editor's unsaved text; the change goes to the
// editor, not around it to the disk.
func TestEditorBuffersAreWhatReadAndEditSee(t *testing.T) {
	e := newFileEnv(t)
	p := e.put("a.txt", "on disk\n")
	ed := &buffers{text: map[string]string{p: "unsaved line\n"}, read: true, write: true}
	e.files.SetEditor(ed)
	if got := e.readFile("a.txt"); !strings.Contains(got, "unsaved line") || strings.Contains(got, "on disk") {
		t.Fatalf("Read = %q, want the editor's text", got)
	}
	e.ok(e.edit, map[string]any{"file_path": p, "old_string": "unsaved", "new_string": "edited"})
	if ed.text[p] != "edited line\n" || len(ed.writes) != 1 {
		t.Fatalf("editor text %q after %d writes", ed.text[p], len(ed.writes))
	}
	if got := e.get("a.txt"); got != "on disk\n" {
		t.Fatalf("disk = %q: the editor saves, not the tool", got)
	}
	// The disk did not change, so a second edit is still checked against it and passes.
	e.ok(e.edit, map[string]any{"file_path": p, "old_string": "edited", "new_string": "again"})
	if ed.text[p] != "again line\n" {
		t.Fatalf("editor text %q", ed.text[p])
	}
	// A change on disk behind everyone's back still stops the next edit.
	e.put("a.txt", "someone else\n")
	if err := e.fails(e.edit, map[string]any{"file_path": p, "old_string": "again", "new_string": "x"}); !strings.Contains(err.Error(), "modified since read") {
		t.Fatalf("err = %v", err)
	}
}

// Write goes through an editor that writes and saves; one that only reads leaves the
// writing to the tool.
func TestEditorWritesOrLeavesItToTheDisk(t *testing.T) {
	e := newFileEnv(t)
	p := e.path("new.txt")
	ed := &buffers{text: map[string]string{}, write: true, save: func(path, text string) { e.put("new.txt", text) }}
	e.files.SetEditor(ed)
	e.ok(e.write, map[string]any{"file_path": p, "content": "hello\n"})
	if len(ed.writes) != 1 || e.get("new.txt") != "hello\n" {
		t.Fatalf("writes %v, disk %q", ed.writes, e.get("new.txt"))
	}
	e.ok(e.write, map[string]any{"file_path": p, "content": "second\n"}) // the stamp after the editor's save holds

	readOnly := &buffers{text: map[string]string{}, read: true}
	e.files.SetEditor(readOnly)
	e.ok(e.write, map[string]any{"file_path": p, "content": "third\n"})
	if e.get("new.txt") != "third\n" {
		t.Fatalf("disk = %q", e.get("new.txt"))
	}
}
