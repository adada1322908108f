// Package grant keeps what the agent writes from granting it power later. Skill, command
// and agent files may ask for permissions: a skill's or command's allowed-tools, an agent's
// permissionMode, the hooks of an agent, a skill or a plugin. Writing such files stays as easy as in Claude Code, but a file whose
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
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/flock"
	"github.com/ouroagent/ouro/internal/regfile"
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

// key is the ledger's name for path: its folder with symbolic links resolved, so that a
// file watched through one spelling of a folder (a home folder that is a link) is found
// when read through another.
func key(path string) string {
	path = filepath.Clean(path)
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return path
}

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
	lf, err := os.OpenFile(l.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
	defer lf.Close() // closing releases the lock
	if err := flock.Lock(lf, true); err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
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
// and what it recorded since. What it last saw is also kept on disk (an open snapshot,
// locked while the session lives), so that when a session is killed before it could
// record a change, the next session finds the snapshot and records the change for it.
type Watch struct {
	ledger  *Ledger
	session string
	dirs    []string

	mu    sync.Mutex
	seen  map[string]string // path → hash last seen
	start map[string]string // path → hash when the session started
	open  *os.File          // the open snapshot, locked; nil when it could not be made
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

// SettingsFiles lists the settings files that can widen a session's permissions (allow
// rules, modes, hooks, MCP approvals, directories, env): the project's .claude/ and .ouro/
// settings and local settings, and the user's (ouroHome/settings.json and
// ~/.claude/settings.json). A Watch follows them as it follows Dirs, so one an ouro
// session wrote (Write, Edit, or a Bash command, in any mode) widens nothing until
// reviewed; settings.LoadOptions.Unreviewed asks the ledger at the next start.
func SettingsFiles(projectRoot, home, ouroHome string) []string {
	var out []string
	if projectRoot != "" {
		for _, d := range []string{".claude", ".ouro"} {
			out = append(out, filepath.Join(projectRoot, d, "settings.json"), filepath.Join(projectRoot, d, "settings.local.json"))
		}
	}
	if ouroHome != "" {
		out = append(out, filepath.Join(ouroHome, "settings.json"))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".claude", "settings.json"))
	}
	return out
}

// Start begins watching dirs for session: it first records what sessions that ended
// without closing their watch (a crash, kill -9) changed, then notes what every file
// holds now and keeps that snapshot open on disk.
func (l *Ledger) Start(session string, dirs []string) *Watch {
	seen := scan(dirs)
	l.recoverOpen(seen)
	w := &Watch{ledger: l, session: session, dirs: dirs, seen: seen, start: maps.Clone(seen)}
	w.open = l.openSnapshot(session)
	w.saveSnapshot()
	return w
}

// openDir holds the open snapshots of live (or killed) sessions.
func (l *Ledger) openDir() string { return filepath.Join(filepath.Dir(l.path), "grants-open") }

// openSnapshot creates and locks session's snapshot file; nil if it cannot.
func (l *Ledger) openSnapshot(session string) *os.File {
	if err := os.MkdirAll(l.openDir(), 0o700); err != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(l.openDir(), session+".json"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	if busy, err := flock.TryLock(f); busy || err != nil {
		f.Close()
		return nil
	}
	return f
}

// saveSnapshot writes what the watch last saw into its open snapshot.
func (w *Watch) saveSnapshot() {
	if w.open == nil {
		return
	}
	data, _ := json.Marshal(w.seen)
	if err := w.open.Truncate(0); err == nil {
		_, _ = w.open.WriteAt(data, 0)
		_ = w.open.Sync()
	}
}

// recoverOpen records, for each snapshot left by a session that did not close its watch,
// what changed since it was written, as that session's unreviewed work; a snapshot whose
// session still holds its lock stays, one left by a dead session is removed.
func (l *Ledger) recoverOpen(now map[string]string) {
	entries, _ := os.ReadDir(l.openDir())
	for _, e := range entries {
		session, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		p := filepath.Join(l.openDir(), e.Name())
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		busy, _ := flock.TryLock(f)
		var before map[string]string
		if data, err := io.ReadAll(io.LimitReader(f, 16<<20)); err == nil && json.Unmarshal(data, &before) == nil {
			_, _ = l.record(session, before, now)
		}
		f.Close()
		if !busy {
			os.Remove(p)
		}
	}
}

// Close records what changed since the last check and removes the open snapshot.
func (w *Watch) Close() error {
	_, err := w.Check()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.open != nil {
		os.Remove(w.open.Name())
		w.open.Close()
		w.open = nil
	}
	return err
}

// maxLinkDepth bounds how deep scan goes below a folder reached through a symbolic link,
// and maxScanned how many entries one scan looks at: a link to / in a skills folder
// costs a bounded walk, not the whole disk. A file beyond them is not watched, and a
// file not watched grants nothing (it did not hold its content when the session began).
const (
	maxLinkDepth = 4
	maxScanned   = 20000
)

// scan hashes every file under dirs that could hold a skill, command or agent (.md), or a
// plugin's manifest or hooks (.json), named as reached from dirs. Symbolic links are
// followed, to files and to folders (a skill linked in from a shared checkout is a skill
// like one copied in), each real folder once per path, so a loop ends. Every file is
// read each time: a size and a time can be put back by whoever wrote the file.
func scan(dirs []string) map[string]string {
	out := map[string]string{}
	budget := maxScanned
	for _, d := range dirs {
		scanPath(out, d, -1, map[string]bool{}, &budget)
	}
	return out
}

// scanPath adds p to out: a file hashed, a folder walked. linkDepth is how deep p lies
// below the last symbolic link to a folder (-1: no link yet); onPath holds the real
// folders being walked, to end a loop.
func scanPath(out map[string]string, p string, linkDepth int, onPath map[string]bool, budget *int) {
	if *budget--; *budget < 0 {
		return
	}
	lst, err := os.Lstat(p)
	if err != nil {
		return
	}
	st := lst
	if lst.Mode()&fs.ModeSymlink != 0 {
		if st, err = os.Stat(p); err != nil {
			return
		}
		if st.IsDir() {
			linkDepth = 0
		}
	}
	switch {
	case st.IsDir():
		if linkDepth > maxLinkDepth {
			return
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || onPath[real] {
			return
		}
		onPath[real] = true
		defer delete(onPath, real)
		entries, err := os.ReadDir(p)
		if err != nil {
			return
		}
		next := linkDepth
		if next >= 0 {
			next++
		}
		for _, e := range entries {
			scanPath(out, filepath.Join(p, e.Name()), next, onPath, budget)
		}
	case st.Mode().IsRegular() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".json")) && st.Size() <= maxFile:
		if data, err := regfile.Read(p, maxFile); err == nil { // refuses what a repointed link made a pipe
			out[p] = Hash(data)
		}
	}
}

// Check records every grant-bearing file created, changed or removed since the last check
// as the session's unreviewed work. It returns the paths it recorded, sorted. Call it at
// each turn's end and when the session closes.
func (w *Watch) Check() ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := scan(w.dirs)
	changed, err := w.ledger.record(w.session, w.seen, now)
	if err != nil {
		return nil, err
	}
	w.seen = now
	if len(changed) > 0 {
		w.saveSnapshot()
	}
	return changed, nil
}

// record writes every file that differs between before and now (created, changed or
// removed) into the ledger as session's unreviewed work, and returns their paths, sorted.
func (l *Ledger) record(session string, before, now map[string]string) ([]string, error) {
	var changed []string
	for p, h := range now {
		if before[p] != h {
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := now[p]; !ok {
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 {
		return nil, nil
	}
	sort.Strings(changed)
	err := l.update(func(m map[string]entry) {
		for _, p := range changed {
			l.changed(m, p, now[p], session)
		}
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// Wrote records that ouro itself, on the person's word, changed the file at path from
// before to after (an "always" answer saved as a rule): the change is not the agent's. It
// keeps the file's standing: content the person could trust stays trusted (after is
// recorded as reviewed), content still awaiting review stays so. When the file changed
// since the last check (the agent wrote it in this turn), nothing is recorded here: the
// check at the turn's end records the whole change as unreviewed.
func (w *Watch) Wrote(path string, before, after []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	hb := ""
	if before != nil {
		hb = Hash(before)
	}
	if w.seen[path] != hb {
		return nil
	}
	trusted := true
	if before != nil {
		ok, _, err := w.ledger.Trusted(path, before)
		if err != nil {
			return err
		}
		trusted = ok
	}
	var err error
	if trusted {
		err = w.ledger.Approve(path, after)
	} else {
		err = w.ledger.update(func(m map[string]entry) {
			e := m[key(path)]
			w.ledger.changed(m, path, Hash(after), e.Session)
		})
	}
	if err != nil {
		return err
	}
	w.seen[path] = Hash(after)
	w.saveSnapshot()
	return nil
}

// Started returns the hash a file had when the watch started ("" if it did not exist).
func (w *Watch) Started(path string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.start[path]
}
