// Package grant keeps what the agent writes from granting it power later. Skill, command
// and agent files may ask for permissions: a skill's or command's allowed-tools, an agent's
// permissionMode. Writing such files stays as easy as in Claude Code, but a file whose
// content an ouro session produced grants nothing until the user has reviewed it once.
//
// The ledger (grants.json in the project's state folder, outside the workspace) records,
// per file, the SHA-256 of content that changed while an ouro session ran and whether the
// user approved it. Content the ledger does not know was written by the user's own hand
// (between sessions, in an editor) and is trusted; content it knows as unreviewed is not,
// until Approve. A session watches the grant-bearing folders: every change seen at a turn's
// end is recorded at once, so a crash or kill -9 loses none.
package grant

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// FileName is the ledger's name in the project's state folder.
const FileName = "grants.json"

// maxFile bounds what is hashed: a grant-bearing file is a small text file.
const maxFile = 1 << 20

// entry is the ledger's record of one file.
type entry struct {
	SHA256   string    `json:"sha256"`
	Reviewed bool      `json:"reviewed"`
	Session  string    `json:"session,omitempty"` // the session that changed it
	Time     time.Time `json:"time"`
}

// Ledger is the record of grant-bearing content an ouro session produced. Safe for
// concurrent use; updates from several processes are serialised by a lock file.
type Ledger struct {
	path string
	mu   sync.Mutex
}

// Open returns the ledger of the project whose state lives in projectDir.
func Open(projectDir string) *Ledger {
	return &Ledger{path: filepath.Join(projectDir, FileName)}
}

// Path is where the ledger is kept.
func (l *Ledger) Path() string { return l.path }

// Hash is the hex SHA-256 of content.
func Hash(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:])
}

// Trusted reports whether content at path may grant what it asks for. It may not when an
// ouro session produced exactly this content and the user has not approved it since; why
// then says when and how to approve. A ledger that cannot be read trusts nothing it might
// have listed: the error is returned and the file is treated as unreviewed.
func (l *Ledger) Trusted(path string, content []byte) (ok bool, why string, err error) {
	entries, err := l.load()
	if err != nil {
		return false, "the record of agent-written files cannot be read (" + err.Error() + ")", err
	}
	e, known := entries[key(path)]
	if !known || e.SHA256 != Hash(content) || e.Reviewed {
		return true, "", nil
	}
	return false, fmt.Sprintf("it was written or changed by ouro's tools (session %s, %s) and has not been reviewed", e.Session, e.Time.Local().Format("2006-01-02 15:04")), nil
}

// Approve records that the user reviewed content at path: it may grant from now on, until
// it changes again during a session.
func (l *Ledger) Approve(path string, content []byte) error {
	return l.update(func(m map[string]entry) {
		m[key(path)] = entry{SHA256: Hash(content), Reviewed: true, Time: time.Now().UTC()}
	})
}

// changed records content with hash at path ("": the file was removed) as produced by session,
// not reviewed.
func (l *Ledger) changed(m map[string]entry, path string, hash, session string) {
	if hash == "" {
		delete(m, key(path))
		return
	}
	m[key(path)] = entry{SHA256: hash, Session: session, Time: time.Now().UTC()}
}

func key(path string) string { return filepath.Clean(path) }

func (l *Ledger) load() (map[string]entry, error) {
	data, err := os.ReadFile(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]entry{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]entry{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", l.path, err)
	}
	return m, nil
}

// update applies f to the ledger under an exclusive lock and writes it back atomically.
func (l *Ledger) update(f func(map[string]entry)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return err
	}
	unlock, err := lockFile(l.path + ".lock")
	if err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
	defer unlock()
	m, err := l.load()
	if err != nil {
		return err
	}
	f(m)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.path), ".grants-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), l.path)
}

// Watch follows the grant-bearing files of one session: what they held when it started,
// and what it recorded since.
type Watch struct {
	ledger  *Ledger
	session string
	dirs    []string

	mu    sync.Mutex
	seen  map[string]stamp  // path → what was last seen
	start map[string]string // path → hash when the session started
}

type stamp struct {
	hash string
}

// Dirs lists the folders whose files can ask for permissions, under the project root and
// the user's home: skills, commands and agents, of Claude Code and of ouro, and the
// Agent Skills standard's .agents/skills.
func Dirs(projectRoot, home string) []string {
	var out []string
	for _, base := range []string{projectRoot, home} {
		if base == "" {
			continue
		}
		for _, d := range []string{".claude/skills", ".claude/commands", ".claude/agents", ".ouro/skills", ".ouro/commands", ".ouro/agents", ".agents/skills"} {
			out = append(out, filepath.Join(base, d))
		}
	}
	return out
}

// Start begins watching dirs for session: it notes what every file holds now.
func (l *Ledger) Start(session string, dirs []string) *Watch {
	seen := scan(dirs)
	start := make(map[string]string, len(seen))
	for p, st := range seen {
		start[p] = st.hash
	}
	return &Watch{ledger: l, session: session, dirs: dirs, seen: seen, start: start}
}

// scan hashes every file under dirs that could hold a skill, command or agent. Every file
// is read each time: a size and a time can be put back by whoever wrote the file.
func scan(dirs []string) map[string]stamp {
	out := map[string]stamp{}
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() || !de.Type().IsRegular() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			if info, err := de.Info(); err != nil || info.Size() > maxFile {
				return nil
			}
			if data, err := os.ReadFile(p); err == nil {
				out[p] = stamp{hash: Hash(data)}
			}
			return nil
		})
	}
	return out
}

// Check records every grant-bearing file created, changed or removed since the last check
// as the session's unreviewed work. It returns the paths it recorded, sorted. Call it at
// each turn's end and when the session closes.
func (w *Watch) Check() ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := scan(w.dirs)
	type change struct{ path, hash string }
	var changes []change
	for p, st := range now {
		if old, ok := w.seen[p]; !ok || old.hash != st.hash {
			changes = append(changes, change{p, st.hash})
		}
	}
	for p := range w.seen {
		if _, ok := now[p]; !ok {
			changes = append(changes, change{p, ""})
		}
	}
	if len(changes) == 0 {
		return nil, nil
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].path < changes[j].path })
	err := w.ledger.update(func(m map[string]entry) {
		for _, c := range changes {
			w.ledger.changed(m, c.path, c.hash, w.session)
		}
	})
	if err != nil {
		return nil, err
	}
	w.seen = now
	paths := make([]string, len(changes))
	for i, c := range changes {
		paths[i] = c.path
	}
	return paths, nil
}

// Started returns the hash a file had when the watch started ("" if it did not exist).
func (w *Watch) Started(path string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.start[path]
}
