package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// On Windows: paths with drive letters and either slash resolve to the same real path
// inside the workspace, and a path on the drive's root or another folder does not.
func TestResolveWindowsPaths(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if filepath.VolumeName(root) == "" {
		t.Fatalf("temp dir %s has no drive letter", root)
	}
	ws, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, "src", "main.go")
	for _, in := range []string{want, filepath.ToSlash(want), `src\main.go`, "src/main.go", `src\..\src\main.go`} {
		got, err := ws.Resolve(in)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	vol := filepath.VolumeName(root)
	for _, in := range []string{vol + `\`, vol + `\Windows\System32\drivers\etc\hosts`, filepath.Join(base, "outside", "x"), `..\..\x`} {
		var out *OutsideError
		if _, err := ws.Resolve(in); !errors.As(err, &out) {
			t.Errorf("Resolve(%q) = %v, want an OutsideError", in, err)
		}
	}
}

func TestSplitVolumeWindows(t *testing.T) {
	for in, want := range map[string]string{`C:\Users\me`: `C:\`, `\\server\share\x`: `\\server\share\`} {
		top, names := splitVolume(in)
		if top != want || filepath.Join(append([]string{top}, names...)...) != in {
			t.Errorf("splitVolume(%q) = %q, %q", in, top, names)
		}
	}
}
