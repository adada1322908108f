package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A write to a made-up path outside the workspace says nothing is there and names the
// workspace file of that name when there is one (a small model wrote Edit of
// "/path/to/duration.py" for the duration.py it was asked to fix); a path that exists
// gets no such note.
func TestMissingPathOutsideTheWorkspaceIsNamed(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.proj, "duration.py"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := e.policy(t, "acceptEdits", rules{})
	check := func(path string) string {
		v := p.Check(context.Background(), e.call("Edit", `{"file_path": "`+path+`", "old_string": "a", "new_string": "b"}`))
		if v.Behavior != Ask {
			t.Fatalf("%s: %+v", path, v)
		}
		return v.Reason
	}
	if r := check("/path/to/duration.py"); !strings.Contains(r, "(nothing is there; the workspace has "+filepath.Join(e.proj, "duration.py")+")") {
		t.Errorf("a made-up path to a workspace file: %q", r)
	}
	if r := check("{O}/notes.md"); !strings.Contains(r, "(nothing is there; the workspace is "+e.proj+")") {
		t.Errorf("a made-up path to no workspace file: %q", r)
	}
	os.WriteFile(filepath.Join(e.out, "real.md"), nil, 0o644)
	if r := check("{O}/real.md"); strings.Contains(r, "nothing is there") {
		t.Errorf("a file that exists outside: %q", r)
	}
}
