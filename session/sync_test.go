package session

import (
	"os"
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
