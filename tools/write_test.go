package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteSpec(t *testing.T) {
	e := newFileEnv(t)
	if e.write.Spec().Name != "Write" || e.write.ReadOnly() {
		t.Fatalf("name %q, read-only %v; want Write, false", e.write.Spec().Name, e.write.ReadOnly())
	}
	props, required := schemaOf(t, e.write)
	if len(props) != 2 || props["file_path"] == nil || props["content"] == nil {
		t.Errorf("properties %v, want file_path, content", props)
	}
	if strings.Join(required, ",") != "file_path,content" {
		t.Errorf("required = %v", required)
	}
	for _, want := range []string{"Read", "Edit", "absolute"} {
		if !strings.Contains(e.write.Spec().Description, want) {
			t.Errorf("description does not mention %q", want)
		}
	}
}

func TestWrite(t *testing.T) {
	cases := []struct {
		name     string
		existing *string     // content before, nil for none
		mode     fs.FileMode // of the existing file
		read     bool        // Read it first
		file     string
		content  string
		want     string // in the result
		wantMode fs.FileMode
	}{
		{name: "new file", file: "new.txt", content: "a\nb\n", want: "File created successfully at: %s (2 lines, 4 bytes)", wantMode: 0o644},
		{name: "new file in new directories", file: "x/y/z.go", content: "package z", want: "File created successfully at: %s (1 line, 9 bytes)", wantMode: 0o644},
		{name: "empty content", file: "empty", content: "", want: "(0 lines, 0 bytes)", wantMode: 0o644},
		{name: "update keeps mode", existing: ptr("old\n"), mode: 0o755, read: true, file: "run.sh", content: "#!/bin/sh\necho hi\n",
			want: "The file %s has been updated: it now has 2 lines (18 bytes).", wantMode: 0o755},
		{name: "update keeps a private mode", existing: ptr("k=v\n"), mode: 0o600, read: true, file: ".env", content: "k=w\n", want: "has been updated", wantMode: 0o600},
		{name: "CRLF content as given", file: "win.txt", content: "a\r\nb\r\n", want: "(2 lines, 6 bytes)", wantMode: 0o644},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newFileEnv(t)
			p := e.path(tc.file)
			if tc.existing != nil {
				e.put(tc.file, *tc.existing)
				if err := os.Chmod(p, tc.mode); err != nil {
					t.Fatal(err)
				}
			}
			if tc.read {
				e.readFile(tc.file)
			}
			got := e.ok(e.write, map[string]any{"file_path": p, "content": tc.content})
			want := tc.want
			if strings.Contains(want, "%s") {
				want = strings.ReplaceAll(want, "%s", p)
			}
			if !strings.Contains(got, want) {
				t.Errorf("result %q does not contain %q", got, want)
			}
			if e.get(tc.file) != tc.content {
				t.Errorf("content %q, want %q", e.get(tc.file), tc.content)
			}
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != tc.wantMode {
				t.Errorf("mode %v, want %v", st.Mode().Perm(), tc.wantMode)
			}
			if left := tempFiles(t, filepath.Dir(p)); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestWriteErrors(t *testing.T) {
	e := newFileEnv(t)
	if err := os.Mkdir(e.path("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, input, want string }{
		{"missing file_path", `{"content": "x"}`, "file_path is required"},
		{"missing content", `{"file_path": "a.txt"}`, "content is required"},
		{"content not a string", `{"file_path": "a.txt", "content": ["x"]}`, "content must be a string, got array"},
		{"file_path not a string", `{"file_path": true, "content": "x"}`, "file_path must be a string, got bool"},
		{"unknown field", `{"file_path": "a.txt", "content": "x", "mode": "0755"}`, `unknown field "mode"`},
		{"directory", `{"file_path": "dir", "content": "x"}`, e.path("dir") + " is a directory"},
		{"trailing slash", `{"file_path": "newdir/", "content": "x"}`, "ends with a slash"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := e.fails(e.write, tc.input); !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(e.path("a.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused write created the file: %v", err)
	}
}

// TestWriteThroughSymlink writes to a link inside the workspace: the target changes and
// the link stays a link.
func TestWriteThroughSymlink(t *testing.T) {
	e := newFileEnv(t)
	e.put("real.txt", "old\n")
	if err := os.Symlink("real.txt", e.path("link.txt")); err != nil {
		t.Fatal(err)
	}
	e.readFile("link.txt")
	e.ok(e.write, map[string]any{"file_path": "link.txt", "content": "new\n"})
	if got := e.get("real.txt"); got != "new\n" {
		t.Errorf("target = %q", got)
	}
	if st, err := os.Lstat(e.path("link.txt")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a symlink: %v %v", st, err)
	}
}

// TestWriteRefusesReadOnlyFile checks that Write and Edit refuse a file the process may
// not write, although the atomic rename would let them replace it. Root may write any
// file, so the check is only observable for other users.
func TestWriteRefusesReadOnlyFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write read-only files")
	}
	e := newFileEnv(t)
	p := e.put("ro.txt", "keep\n")
	if err := os.Chmod(p, 0o444); err != nil {
		t.Fatal(err)
	}
	e.readFile("ro.txt")
	if err := e.fails(e.write, map[string]any{"file_path": p, "content": "x"}); !strings.Contains(err.Error(), "is not writable (mode -r--r--r--)") {
		t.Errorf("Write: %v", err)
	}
	if err := e.fails(e.edit, map[string]any{"file_path": p, "old_string": "keep", "new_string": "x"}); !strings.Contains(err.Error(), "is not writable") {
		t.Errorf("Edit: %v", err)
	}
	if e.get("ro.txt") != "keep\n" {
		t.Errorf("read-only file changed")
	}
}
