//go:build linux || darwin

package tools

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func inode(t *testing.T, p string) *syscall.Stat_t {
	t.Helper()
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t)
}

// A file with several hard links is written in place: every name sees the new content
// and the links stay joined. A file with one link still gets the atomic rename.
func TestFileToolsKeepHardLinks(t *testing.T) {
	e := newFileEnv(t)
	p := e.put("a.txt", "one\n")
	other := e.path("b.txt")
	if err := os.Link(p, other); err != nil {
		t.Fatal(err)
	}
	before := inode(t, p).Ino

	e.readFile("a.txt")
	e.ok(e.edit, map[string]any{"file_path": p, "old_string": "one", "new_string": "two"})
	if got := e.get("b.txt"); got != "two\n" {
		t.Errorf("after Edit the other link holds %q, want %q", got, "two\n")
	}
	e.ok(e.write, map[string]any{"file_path": p, "content": "three\n"})
	if got := e.get("b.txt"); got != "three\n" {
		t.Errorf("after Write the other link holds %q, want %q", got, "three\n")
	}
	st := inode(t, p)
	if st.Nlink != 2 || st.Ino != before || inode(t, other).Ino != before {
		t.Errorf("nlink %d, inode %d (was %d), other name's inode %d: the links were split", st.Nlink, st.Ino, before, inode(t, other).Ino)
	}
	if left := tempFiles(t, e.root); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// One link: replaced by rename, so a new inode.
	q := e.put("single.txt", "x\n")
	was := inode(t, q).Ino
	e.readFile("single.txt")
	e.ok(e.write, map[string]any{"file_path": q, "content": "y\n"})
	if inode(t, q).Ino == was {
		t.Errorf("a file with one link was written in place; want the atomic rename")
	}
}

func TestFileToolsKeepXattrs(t *testing.T) {
	e := newFileEnv(t)
	p := e.put("x.txt", "one\n")
	const name = "user.ouro.test"
	if err := unix.Setxattr(p, name, []byte("kept"), 0); err != nil {
		if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EPERM) {
			t.Skipf("the filesystem of %s does not take user xattrs: %v", p, err)
		}
		t.Fatal(err)
	}
	e.readFile("x.txt")
	e.ok(e.edit, map[string]any{"file_path": p, "old_string": "one", "new_string": "two"})
	e.ok(e.write, map[string]any{"file_path": p, "content": "three\n"})
	if e.get("x.txt") != "three\n" {
		t.Fatalf("content %q", e.get("x.txt"))
	}
	buf := make([]byte, 64)
	n, err := unix.Getxattr(p, name, buf)
	if err != nil || string(buf[:n]) != "kept" {
		t.Errorf("xattr %s after Edit and Write: %q, %v; want %q", name, buf[:max(n, 0)], err, "kept")
	}
}

// Root editing another user's file (a setuid one, even) leaves it theirs.
func TestFileToolsKeepOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	e := newFileEnv(t)
	p := e.put("owned.sh", "echo a\n")
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, os.ModeSetuid|0o755); err != nil {
		t.Fatal(err)
	}
	e.readFile("owned.sh")
	e.ok(e.edit, map[string]any{"file_path": p, "old_string": "a", "new_string": "b"})
	e.ok(e.write, map[string]any{"file_path": p, "content": "echo c\n"})
	st := inode(t, p)
	if st.Uid != 65534 || st.Gid != 65534 {
		t.Errorf("owner %d:%d after Edit and Write, want 65534:65534", st.Uid, st.Gid)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := os.FileMode(0o755) | os.ModeSetuid; info.Mode() != want {
		t.Errorf("mode %v, want %v", info.Mode(), want)
	}
	if e.get("owned.sh") != "echo c\n" {
		t.Errorf("content %q", e.get("owned.sh"))
	}
}

// A symbolic link that appears at the resolved path between the check and the write is
// not written through, and not replaced.
func TestWriteFileAtomicRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := writeFileAtomic(link, []byte("new"), 0o644); err == nil {
		t.Fatal("writeFileAtomic over a symbolic link succeeded")
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", info, err)
	}
	if data, _ := os.ReadFile(target); string(data) != "old" {
		t.Errorf("target holds %q", data)
	}
}

// An unprivileged process cannot give the new file the owner of another user's
// group-writable file, so it writes that file in place, which keeps the owner. Set up
// as root, the write is done by this test binary run as nobody (65534).
func TestWriteFileAtomicKeepsOtherUsersFileUnprivileged(t *testing.T) {
	if path := os.Getenv("OURO_TEST_WRITE_AS_NOBODY"); path != "" {
		if _, err := writeFileAtomic(path, []byte("new\n"), 0o664); err != nil {
			t.Fatal(err)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("setting up another user's file needs root")
	}
	dir := t.TempDir()
	// t.TempDir gives dir and its parent mode 0700; nobody must reach and write it.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "shared.txt")
	if err := os.WriteFile(p, []byte("old\n"), 0o664); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 0, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o664); err != nil {
		t.Fatal(err)
	}
	// A copy of the test binary nobody can run (the build directory is root's alone).
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tools.test")
	copyExecutable(t, self, bin)
	cmd := exec.Command(bin, "-test.run=^TestWriteFileAtomicKeepsOtherUsersFileUnprivileged$", "-test.count=1")
	cmd.Env = append(os.Environ(), "OURO_TEST_WRITE_AS_NOBODY="+p)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("write as nobody: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(p); string(data) != "new\n" {
		t.Errorf("content %q, want %q", data, "new\n")
	}
	st := inode(t, p)
	if st.Uid != 0 || st.Gid != 65534 {
		t.Errorf("owner %d:%d after nobody's write, want 0:65534", st.Uid, st.Gid)
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
