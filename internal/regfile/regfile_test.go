//go:build unix

package regfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadBoundsAndKinds(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o600)
	big := filepath.Join(dir, "big")
	os.WriteFile(big, []byte(strings.Repeat("x", 100)), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(small, link)

	if got, err := Read(small, 5); err != nil || string(got) != "hello" {
		t.Fatalf("Read(small, 5) = %q, %v", got, err)
	}
	if got, err := Read(link, 10); err != nil || string(got) != "hello" {
		t.Fatalf("a symlink to a regular file is read: %q, %v", got, err)
	}
	if _, err := Read(big, 99); !IsTooLarge(err) || !strings.Contains(err.Error(), "larger than 99 bytes") {
		t.Fatalf("Read(big, 99) err = %v", err)
	}
	if head, more, err := ReadHead(big, 10); err != nil || !more || len(head) != 10 {
		t.Fatalf("ReadHead(big, 10) = %d bytes, more %v, %v", len(head), more, err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file err = %v", err)
	}
	for _, p := range []string{fifo, dir, "/dev/zero", "/dev/null"} {
		done := make(chan error, 1)
		go func() { _, err := Read(p, 1<<20); done <- err }()
		select {
		case err := <-done:
			if !IsNotRegular(err) {
				t.Errorf("Read(%s) err = %v, want not a regular file", p, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Read(%s) hangs", p)
		}
	}
	_, err := Read(fifo, 10)
	if !strings.Contains(err.Error(), "is a named pipe, not a regular file") {
		t.Fatalf("fifo err = %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 256 << 10: "256 KiB", 100: "100 bytes", 1500: "1500 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLimitReader(t *testing.T) {
	r := LimitReader(strings.NewReader("abcdef"), "f", 3)
	buf := make([]byte, 10)
	n, err := r.Read(buf)
	if n != 3 || err != nil {
		t.Fatalf("first read = %d, %v", n, err)
	}
	if _, err := r.Read(buf); !IsTooLarge(err) {
		t.Fatalf("past the limit err = %v", err)
	}
	r = LimitReader(strings.NewReader("abc"), "f", 3)
	data, err := io.ReadAll(r)
	if string(data) != "abc" || err != nil {
		t.Fatalf("exactly the limit = %q, %v", data, err)
	}
}
