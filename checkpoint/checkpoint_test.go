package checkpoint

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// journal stands in for the transcript: it keeps the entries a store records.
type journal struct{ entries []Entry }

func (j *journal) record(typ string, data any) error {
	b, err := json.Marshal(data)
	j.entries = append(j.entries, Entry{Type: typ, Data: b})
	return err
}

type fixture struct {
	t        *testing.T
	sessions string
	work     string
	j        *journal
	s        *Store
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, sessions: t.TempDir(), work: t.TempDir(), j: &journal{}}
	f.s = Open(f.sessions, "s1", f.j.record, nil)
	return f
}

// change does what Write does: tell the store, write, tell it what was written.
func (f *fixture) change(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.work, rel)
	if err := f.s.BeforeChange(p); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.s.Changed(p, sha256.Sum256([]byte(content)))
}

func (f *fixture) read(rel string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(f.work, rel))
	return string(data), err == nil
}

func (f *fixture) restore(id int, force bool) []Step {
	f.t.Helper()
	steps, err := f.s.Plan(id)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.s.Restore(steps, force); err != nil {
		f.t.Fatal(err)
	}
	return steps
}

func TestNothingIsWrittenUntilAFileChanges(t *testing.T) {
	f := newFixture(t)
	if err := f.s.Begin(0, "just a question"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.sessions, "s1")); !os.IsNotExist(err) {
		t.Fatalf("a checkpoint folder was made for a prompt that changed nothing: %v", err)
	}
	f.change("a.txt", "a")
	if _, err := os.Stat(filepath.Join(f.sessions, "s1", "checkpoints", "1.json")); err != nil {
		t.Fatal(err)
	}
}

func TestRestoreAcrossPrompts(t *testing.T) {
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.work, "a.txt"), []byte("a0"), 0o600)
	f.s.Begin(0, "one")
	f.change("a.txt", "a1")
	f.change("a.txt", "a2") // the second change in a prompt keeps the first state
	f.s.Begin(2, "two\nsecond line")
	f.change("a.txt", "a3")
	f.change("b.txt", "b1")
	ps, err := f.s.Prompts()
	if err != nil || len(ps) != 2 || ps[1].Preview != "two …" || len(ps[1].Files) != 2 || !ps[1].Files[1].Absent {
		t.Fatalf("%+v %v", ps, err)
	}
	f.restore(2, false)
	if got, _ := f.read("a.txt"); got != "a2" {
		t.Fatalf("a.txt = %q, want a2 (before prompt two)", got)
	}
	if _, ok := f.read("b.txt"); ok {
		t.Fatal("b.txt, created by prompt two, is still there")
	}
	// The plan checks against what ouro last wrote: a2 is not that any more (the
	// restore wrote it), so restoring further back is a conflict...
	f.restore(1, false)
	if got, _ := f.read("a.txt"); got != "a2" {
		t.Fatalf("a conflicting file was overwritten without force: %q", got)
	}
	// ...which force overrides, keeping the permissions the file had.
	f.restore(1, true)
	if got, _ := f.read("a.txt"); got != "a0" {
		t.Fatalf("a.txt = %q", got)
	}
	if info, _ := os.Stat(filepath.Join(f.work, "a.txt")); info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", info.Mode().Perm())
	}
}

func TestAnOutsideChangeIsAConflict(t *testing.T) {
	f := newFixture(t)
	f.s.Begin(0, "one")
	f.change("a.txt", "ouro")
	os.WriteFile(filepath.Join(f.work, "a.txt"), []byte("mine"), 0o644)
	steps, _ := f.s.Plan(1)
	if len(steps) != 1 || !strings.Contains(steps[0].Conflict, "changed after ouro last wrote it") {
		t.Fatalf("%+v", steps)
	}
	os.Remove(filepath.Join(f.work, "a.txt"))
	os.WriteFile(filepath.Join(f.work, "a.txt"), []byte("ouro"), 0o644)
	if steps, _ := f.s.Plan(1); steps[0].Conflict != "" {
		t.Fatalf("the file is as ouro left it: %+v", steps)
	}
}

func TestATooBigFileIsNotKeptAndSaysSo(t *testing.T) {
	f := newFixture(t)
	f.s.MaxFile = 10
	os.WriteFile(filepath.Join(f.work, "big"), []byte(strings.Repeat("x", 11)), 0o644)
	f.s.Begin(0, "one")
	f.change("big", "small")
	if blobs, _ := os.ReadDir(filepath.Join(f.sessions, "s1", "checkpoints", "blobs")); len(blobs) != 0 {
		t.Fatalf("a file over the cap was stored: %v", blobs)
	}
	ps, _ := f.s.Prompts()
	if !ps[0].Files[0].TooBig || ps[0].Files[0].Size != 11 {
		t.Fatalf("%+v", ps[0].Files)
	}
	steps, _ := f.s.Plan(1)
	if !strings.Contains(steps[0].Refused, "too big to checkpoint") {
		t.Fatalf("%+v", steps)
	}
}

func TestASymlinkIsNeverFollowed(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("keep"), 0o644)
	f.s.Begin(0, "one")
	f.change("a.txt", "ouro")
	// A symlink in place of the file: snapshotting it (a new prompt) and restoring
	// through it are both refused.
	os.Remove(filepath.Join(f.work, "a.txt"))
	os.Symlink(outside, filepath.Join(f.work, "a.txt"))
	steps, _ := f.s.Plan(1)
	if !strings.Contains(steps[0].Refused, "symbolic link") {
		t.Fatalf("%+v", steps)
	}
	f.s.Begin(1, "two")
	if err := f.s.BeforeChange(filepath.Join(f.work, "a.txt")); err == nil {
		t.Fatal("a symlink was checkpointed as a file")
	}
	if data, _ := os.ReadFile(outside); string(data) != "keep" {
		t.Fatal("written through the link")
	}
}

func TestTheListComesBackFromTheTranscript(t *testing.T) {
	f := newFixture(t)
	f.s.Begin(0, "one")
	f.change("a.txt", "1")
	f.s.Begin(2, "two")
	f.s.Begin(4, "three")
	f.j.record(entryReplace, nil) // a compaction
	f.s.Compacted()
	f.s.Begin(1, "four")
	if err := f.s.ConversationRewound(4); err != nil {
		t.Fatal(err)
	}
	f.j.record(entryReplace, nil) // the rewind's own replacement
	f.s.Begin(1, "five")

	again := Open(f.sessions, "s2", f.j.record, f.j.entries)
	ps, err := again.Prompts()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.Preview)
	}
	if strings.Join(names, ",") != "one,two,three,five" || ps[0].Files[0].Path != filepath.Join(f.work, "a.txt") {
		t.Fatalf("%v %+v", names, ps)
	}
	if !ps[0].Compacted || !ps[2].Compacted || ps[3].Compacted {
		t.Fatalf("compaction not carried over: %+v", ps)
	}
	if _, err := again.At(1); err == nil {
		t.Fatal("the conversation can be rewound across a compaction")
	}
	if at, err := again.At(5); err != nil || at != 1 {
		t.Fatalf("%d %v", at, err)
	}
	// A new prompt gets a fresh ID, in the resumed session's own folder, and a kept
	// file is restored from the folder of the session that kept it.
	again.Begin(1, "six")
	ps, _ = again.Prompts()
	if p := ps[len(ps)-1]; p.ID != 6 || p.Session != "s2" {
		t.Fatalf("%+v", p)
	}
	steps, _ := again.Plan(1)
	if _, err := again.Restore(steps, false); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.read("a.txt"); ok {
		t.Fatal("not restored from the first session's checkpoint")
	}
}

func TestAHostileTranscriptCannotNameAnotherFolder(t *testing.T) {
	j := &journal{}
	j.record(EntryPrompt, map[string]any{"id": 1, "session": "../../etc", "at": 0, "preview": "x"})
	s := Open(t.TempDir(), "s1", j.record, j.entries)
	if ps, _ := s.Prompts(); len(ps) != 0 {
		t.Fatalf("%+v", ps)
	}
}

func TestATamperedBlobIsNotRestored(t *testing.T) {
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.work, "a.txt"), []byte("orig"), 0o644)
	f.s.Begin(0, "one")
	f.change("a.txt", "new")
	blobs, _ := os.ReadDir(filepath.Join(f.sessions, "s1", "checkpoints", "blobs"))
	os.WriteFile(filepath.Join(f.sessions, "s1", "checkpoints", "blobs", blobs[0].Name()), []byte("evil"), 0o600)
	steps, _ := f.s.Plan(1)
	if _, err := f.s.Restore(steps, false); err == nil || !strings.Contains(err.Error(), "altered") {
		t.Fatalf("%v", err)
	}
	if got, _ := f.read("a.txt"); got != "new" {
		t.Fatalf("%q", got)
	}
}

// A manifest edited on disk (by Bash, say) to name a file outside the workspace cannot
// make a rewind delete or overwrite it.
func TestAManifestCannotAimOutsideTheWorkspace(t *testing.T) {
	f := newFixture(t)
	f.s.Within = func(p string) bool { return strings.HasPrefix(p, f.work+string(filepath.Separator)) }
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	f.s.Begin(0, "one")
	f.change("a.txt", "a")
	manifest := filepath.Join(f.sessions, "s1", "checkpoints", "1.json")
	data, _ := json.Marshal([]File{{Path: victim, Absent: true}})
	os.WriteFile(manifest, data, 0o600)
	again := Open(f.sessions, "s1", f.j.record, f.j.entries)
	again.Within = f.s.Within
	steps, err := again.Plan(1)
	if err != nil || len(steps) != 1 || !strings.Contains(steps[0].Refused, "outside") {
		t.Fatalf("%+v %v", steps, err)
	}
	again.Restore(steps, true)
	if _, err := os.Stat(victim); err != nil {
		t.Fatal("the file outside the workspace was deleted")
	}
}

// Killed between the checkpoint and the write, the file is as it was: nothing to do. Killed
// between the write and the record of it, the file is not what the record expects: the
// rewind asks rather than assumes.
func TestACrashMidChangeIsSafe(t *testing.T) {
	f := newFixture(t)
	p := filepath.Join(f.work, "a.txt")
	os.WriteFile(p, []byte("before"), 0o644)
	f.s.Begin(0, "one")
	if err := f.s.BeforeChange(p); err != nil {
		t.Fatal(err)
	}
	again := Open(f.sessions, "s1", f.j.record, f.j.entries)
	if steps, _ := again.Plan(1); len(steps) != 1 || !steps[0].Same {
		t.Fatalf("%+v", steps)
	}
	os.WriteFile(p, []byte("after"), 0o644) // written, but Changed never came
	again = Open(f.sessions, "s1", f.j.record, f.j.entries)
	steps, _ := again.Plan(1)
	if len(steps) != 1 || steps[0].Conflict == "" {
		t.Fatalf("%+v", steps)
	}
	again.Restore(steps, true)
	if got, _ := f.read("a.txt"); got != "before" {
		t.Fatalf("%q", got)
	}
}

// A prompt sent with a !command's output shows as typed: the command as "! cmd" beside
// the prompt's first line, no tags, no output.
func TestPreviewOfAShellPrompt(t *testing.T) {
	for in, want := range map[string]string{
		"<bash-input>ls</bash-input>\n<bash-stdout>a.go</bash-stdout>\n\nwhat is here?":       "! ls · what is here?",
		"<bash-input>make</bash-input>\n<bash-stderr>no rule</bash-stderr>\n\nfix it\nplease": "! make · fix it …",
		"just words": "just words",
	} {
		if got := preview(in); got != want {
			t.Errorf("preview(%q) = %q, want %q", in, got, want)
		}
	}
}
