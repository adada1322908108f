package tools

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func sha256Of(s string) [sha256.Size]byte { return sha256.Sum256([]byte(s)) }

// TestFileStateGuardsChanges checks the rule Write and Edit share: an existing file must
// have been read in this session and be unchanged since, and reading it again lifts a
// refusal.
func TestFileStateGuardsChanges(t *testing.T) {
	const before = "one\ntwo\n"
	behind := func(content string, mtime func(old time.Time) time.Time) func(*fileEnv) {
		return func(e *fileEnv) {
			p := e.path("f.txt")
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if content != "" {
				e.put("f.txt", content)
			}
			if err := os.Chtimes(p, st.ModTime(), mtime(st.ModTime())); err != nil {
				t.Fatal(err)
			}
		}
	}
	same := func(old time.Time) time.Time { return old }
	cases := []struct {
		name  string
		read  map[string]any // Read input before the change; nil for no Read
		after func(*fileEnv) // what happens behind the agent's back
		want  error
	}{
		{name: "not read", want: errNotRead},
		{name: "read", read: map[string]any{"file_path": "f.txt"}},
		{name: "read in part", read: map[string]any{"file_path": "f.txt", "offset": 2, "limit": 1}},
		{name: "read by another spelling of the path", read: map[string]any{"file_path": "./sub/../f.txt"}},
		{name: "grown since", read: map[string]any{"file_path": "f.txt"}, after: behind("one\ntwo\nthree\n", same), want: errChanged},
		{name: "same size, same mtime, other content", read: map[string]any{"file_path": "f.txt"}, after: behind("uno\ntwo\n", same), want: errChanged},
		{name: "touched", read: map[string]any{"file_path": "f.txt"}, after: behind("", func(old time.Time) time.Time { return old.Add(time.Hour) }), want: errChanged},
	}
	for _, tc := range cases {
		for _, name := range []string{"Write", "Edit"} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				e := newFileEnv(t)
				if err := os.Mkdir(e.path("sub"), 0o755); err != nil {
					t.Fatal(err)
				}
				e.put("f.txt", before)
				if tc.read != nil {
					e.ok(e.read, tc.read)
				}
				if tc.after != nil {
					tc.after(e)
				}
				was := e.get("f.txt")
				change := func() (string, error) {
					if name == "Write" {
						res, err := e.run(e.write, map[string]any{"file_path": "f.txt", "content": "written\n"})
						return res.Text(), err
					}
					res, err := e.run(e.edit, map[string]any{"file_path": "f.txt", "old_string": "two", "new_string": "2"})
					return res.Text(), err
				}
				_, err := change()
				if !errors.Is(err, tc.want) {
					t.Fatalf("%s: %v, want %v", name, err, tc.want)
				}
				if tc.want == nil {
					return
				}
				if !strings.Contains(err.Error(), e.path("f.txt")) {
					t.Errorf("error %q does not name the file", err)
				}
				if e.get("f.txt") != was {
					t.Errorf("a refused %s changed the file", name)
				}
				// Reading the file again lifts the refusal.
				e.readFile("f.txt")
				if _, err := change(); err != nil {
					t.Errorf("%s after reading again: %v", name, err)
				}
			})
		}
	}
}

// TestFileStateFollowsOwnChanges checks that what Write and Edit record lets the next
// change through without another Read, and that new files need no Read.
func TestFileStateFollowsOwnChanges(t *testing.T) {
	e := newFileEnv(t)
	e.ok(e.write, map[string]any{"file_path": "n.txt", "content": "a b c\n"}) // new: no Read
	e.ok(e.edit, map[string]any{"file_path": "n.txt", "old_string": "a", "new_string": "A"})
	e.ok(e.edit, map[string]any{"file_path": "n.txt", "old_string": "b", "new_string": "B"})
	e.ok(e.write, map[string]any{"file_path": "n.txt", "content": "A B C\nD\n"})
	e.ok(e.edit, map[string]any{"file_path": "n.txt", "old_string": "D", "new_string": "E"})
	if got := e.get("n.txt"); got != "A B C\nE\n" {
		t.Errorf("content %q", got)
	}
	// A change behind the agent's back after all that is still caught.
	e.put("n.txt", "user's\n")
	if err := e.fails(e.edit, map[string]any{"file_path": "n.txt", "old_string": "user", "new_string": "mine"}); !errors.Is(err, errChanged) {
		t.Errorf("edit after an outside change: %v, want errChanged", err)
	}
}

// TestFileStateSerialisesChanges runs many edits of one file at once after a single
// Read: each must see the previous one's result, so none is refused and none is lost.
func TestFileStateSerialisesChanges(t *testing.T) {
	e := newFileEnv(t)
	const n = 16
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "token%02d\n", i)
	}
	e.put("f.txt", sb.String())
	e.readFile("f.txt")
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = e.run(e.edit, map[string]any{"file_path": "f.txt", "old_string": fmt.Sprintf("token%02d", i), "new_string": fmt.Sprintf("TOKEN%02d", i)})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("edit %d: %v", i, err)
		}
	}
	if got, want := e.get("f.txt"), strings.ToUpper(sb.String()); got != want {
		t.Errorf("content after concurrent edits:\n%s\nwant:\n%s", got, want)
	}
	e.files.mu.Lock()
	defer e.files.mu.Unlock()
	if len(e.files.locks) != 0 {
		t.Errorf("%d path locks left after all edits finished", len(e.files.locks))
	}
}
