package session

import (
	"os"
	"path/filepath"
	"testing"
)

// A sync with nothing written since the last one does not reach the disk again (a
// subagent's Close right after its turn's end); any write makes the next one count.
func TestSyncSkipsWhatIsAlreadyOnDisk(t *testing.T) {
	n := 0
	fsync = func(f *os.File) error { n++; return f.Sync() }
	t.Cleanup(func() { fsync = (*os.File).Sync })
	w, err := Create(t.TempDir(), Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendEntry("note", map[string]string{"a": "b"}); err != nil {
		t.Fatal(err)
	}
	before := n
	if err := w.Sync(); err != nil || n != before+1 {
		t.Fatalf("first sync: %v, %d fsyncs", err, n-before)
	}
	if err := w.Sync(); err != nil || n != before+1 {
		t.Fatalf("a sync with nothing new: %v, %d fsyncs", err, n-before)
	}
	if err := w.AppendEntry("note", map[string]string{"c": "d"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil || n != before+2 {
		t.Fatalf("close after a write: %v, %d fsyncs", err, n-before)
	}
	tr, err := Load(w.Path())
	if err != nil || len(tr.Entries) != 3 {
		t.Fatalf("reloaded: %v, %d entries", err, len(tr.Entries))
	}
}

// TestFolderSyncShared: transcripts created in one folder share its sync: the first
// writer's Sync covers every file created before it, and a file created after needs one more.
func TestFolderSyncShared(t *testing.T) {
	n := 0
	fsyncFolder = func(f *os.File) error { n++; return f.Sync() }
	t.Cleanup(func() { fsyncFolder = (*os.File).Sync })
	dir := t.TempDir()
	open := func(name string) *Writer {
		w, err := CreateFile(filepath.Join(dir, name+".jsonl"), Meta{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		return w
	}
	a, b := open("a"), open("b")
	for i, w := range []*Writer{a, b, a} {
		if err := w.Sync(); err != nil || n != 1 {
			t.Fatalf("sync %d: %v, %d folder syncs, want 1", i, err, n)
		}
	}
	c := open("c")
	if err := b.Sync(); err != nil || n != 1 {
		t.Fatalf("b again: %v, %d folder syncs, want 1", err, n)
	}
	if err := c.Sync(); err != nil || n != 2 {
		t.Fatalf("c, created after the folder sync: %v, %d folder syncs, want 2", err, n)
	}
}
