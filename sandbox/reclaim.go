package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Absent lists the read-only paths that do not exist yet. The sandbox protects only what
// exists (see Policy.ReadOnly), so a command could create one of these — a hooks folder
// or a .claude/settings.json that git or the next session would obey outside the
// sandbox. Take the list before a command and give it to Reclaim after.
func (p Policy) Absent() []string {
	var out []string
	for _, r := range p.ReadOnly {
		if _, err := os.Lstat(r); os.IsNotExist(err) {
			out = append(out, r)
		}
	}
	return out
}

// Reclaim undoes what a command created at the paths Absent listed: each is moved into
// a quarantine folder under dir (the session's temp dir; "" means the system's), or
// removed when it cannot be moved there, and the returned note says so ("" when nothing
// was created).
func Reclaim(absent []string, dir string) string {
	if dir == "" {
		dir = os.TempDir()
	}
	var moved []string
	for _, p := range absent {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		q := filepath.Join(dir, "quarantine", fmt.Sprintf("%d", time.Now().UnixNano()), filepath.Base(p))
		where := "moved to " + q
		if err := os.MkdirAll(filepath.Dir(q), 0o700); err != nil || os.Rename(p, q) != nil {
			if err := os.RemoveAll(p); err != nil {
				where = fmt.Sprintf("could not be removed (%v): remove it yourself before you trust it", err)
			} else {
				where = "removed"
			}
		}
		moved = append(moved, fmt.Sprintf("%s (%s)", p, where))
	}
	if len(moved) == 0 {
		return ""
	}
	return "The command created protected paths, which sandboxed commands may not write (git and ouro read them outside the sandbox): " +
		strings.Join(moved, "; ") + ". To change settings, hooks or agents, use the Write or Edit tool, which asks the user first."
}
