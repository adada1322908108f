//go:build linux

package lean

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// release drops the executable's read-only mappings that hold only pages of the file. A
// mapping with anonymous pages is kept: a dynamically linked build's
// RELRO segment, for one, is read-only but was written by the dynamic loader
// (relocations), and dropping it would bring back the file's unrelocated bytes.
func release() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer f.Close()
	type mapping struct {
		lo, hi uint64
		ours   bool
		dirty  bool // holds anonymous (copied) pages
	}
	var maps []mapping
	cur := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		if len(fs) == 0 {
			continue
		}
		if a, b, ok := strings.Cut(fs[0], "-"); ok && len(fs) >= 5 && !strings.HasSuffix(fs[0], ":") {
			// A mapping's header: start-end perms offset dev inode [path]
			lo, err1 := strconv.ParseUint(a, 16, 64)
			hi, err2 := strconv.ParseUint(b, 16, 64)
			if err1 != nil || err2 != nil {
				cur = -1
				continue
			}
			ours := len(fs) >= 6 && fs[5] == exe && !strings.ContainsAny(fs[1], "ws")
			maps = append(maps, mapping{lo: lo, hi: hi, ours: ours})
			cur = len(maps) - 1
			continue
		}
		if cur < 0 || len(fs) < 2 {
			continue
		}
		switch fs[0] {
		case "Anonymous:", "Swap:":
			// Anonymous pages are copies the process wrote (relocations); a file page
			// counted dirty is only not yet written back, and is the file's content.
			if fs[1] != "0" {
				maps[cur].dirty = true
			}
		}
	}
	if sc.Err() != nil {
		return
	}
	for _, m := range maps {
		if m.ours && !m.dirty && m.hi > m.lo {
			_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(m.lo), uintptr(m.hi-m.lo), unix.MADV_DONTNEED)
		}
	}
}
