// Package session keeps conversations on disk as append-only JSONL transcripts shaped like
// Claude Code's, lists them per project, and loads them back for --resume and --continue,
// repairing what a crash leaves behind (a torn last line, tool calls without results) so
// the conversation can be sent to a model again.
//
// Layout under the ouro home (OURO_HOME or ~/.ouro):
//
//	projects/<slug of the cwd>/sessions/<id>.jsonl   the transcript
//	projects/<slug of the cwd>/sessions/<id>/        the session's side folder (tool-results/, subagents/)
package session

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxSlug bounds a project folder name: a deep working directory must not produce a name
// longer than the 255 bytes file systems allow for one path component.
const maxSlug = 200

// Home returns the ouro home folder: $OURO_HOME if set, else ~/.ouro.
func Home() (string, error) {
	if h := os.Getenv("OURO_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", fmt.Errorf("resolve OURO_HOME %q: %w", h, err)
		}
		return abs, nil
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home folder (set OURO_HOME to choose one): %w", err)
	}
	return filepath.Join(u, ".ouro"), nil
}

// ProjectDir returns the folder holding the runtime state of the project at cwd, which
// should be absolute: home/projects/<Slug(cwd)>.
func ProjectDir(home, cwd string) string {
	return filepath.Join(home, "projects", Slug(cwd))
}

// Slug turns a working directory into a folder name the way Claude Code does: every
// character that is not an ASCII letter or digit becomes '-', so /home/a/my.app becomes
// -home-a-my-app. A slug longer than 200 bytes is cut and suffixed with a hash of the full
// path, so two long paths with the same beginning still get different folders.
func Slug(cwd string) string {
	cwd = filepath.Clean(cwd)
	var sb strings.Builder
	for _, r := range cwd {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('-')
		}
	}
	s := sb.String()
	if len(s) <= maxSlug {
		return s
	}
	sum := sha256.Sum256([]byte(cwd))
	return s[:maxSlug] + "-" + hex.EncodeToString(sum[:6])
}

// SessionsDir returns the folder holding a project's transcripts.
func SessionsDir(projectDir string) string { return filepath.Join(projectDir, "sessions") }

// checkID rejects IDs that cannot safely be a file name. Generated IDs are UUIDs; callers
// may bring their own (--session-id), so the check is on the characters, not the shape.
func checkID(id string) error {
	if id == "" || len(id) > 128 {
		return fmt.Errorf("session ID %q: must be 1 to 128 characters", id)
	}
	for _, r := range id {
		ok := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		if !ok {
			return fmt.Errorf("session ID %q: only letters, digits, '-' and '_' are allowed", id)
		}
	}
	return nil
}
