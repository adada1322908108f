package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/flock"
)

// pruneStamp, in the ouro home, records when sessions were last pruned: pruning walks
// every project's sessions, so it runs at most once a day, not at every start.
const pruneStamp = ".sessions-pruned"

// Pruned is what a prune removed.
type Pruned struct {
	Sessions int      // transcripts removed, with their side folders (checkpoints, tool results, subagents)
	Orphans  int      // side folders whose transcript was already gone
	Errors   []string // what could not be removed, and why
}

// PruneDue reports whether sessions were not pruned in the last day.
func PruneDue(home string, now time.Time) bool {
	fi, err := os.Stat(filepath.Join(home, pruneStamp))
	return err != nil || now.Sub(fi.ModTime()) >= 24*time.Hour || fi.ModTime().After(now)
}

// Prune removes, in every project under home, the sessions last written before cutoff:
// the transcript and its side folder, checkpoints included. A transcript another process
// holds open (a session in use, a resumed one) is never removed, however old; nor is a
// symbolic link followed. The side folder goes first, so a prune cut short leaves a
// transcript without its extras, never extras without a transcript to explain them. The
// time of the prune is recorded for PruneDue.
func Prune(home string, cutoff time.Time) (Pruned, error) {
	var p Pruned
	if cutoff.After(time.Now()) {
		// A period that went negative somewhere would remove every session.
		return p, fmt.Errorf("prune sessions: the cutoff %s is in the future; nothing was removed", cutoff.Format(time.RFC3339))
	}
	projects, err := os.ReadDir(filepath.Join(home, "projects"))
	if errors.Is(err, fs.ErrNotExist) {
		return p, stamp(home)
	}
	if err != nil {
		return p, fmt.Errorf("prune sessions: %w", err)
	}
	for _, pd := range projects {
		if pd.IsDir() {
			p.project(SessionsDir(filepath.Join(home, "projects", pd.Name())), cutoff)
		}
	}
	return p, stamp(home)
}

func stamp(home string) error {
	path := filepath.Join(home, pruneStamp)
	now := time.Now()
	if err := os.Chtimes(path, now, now); err == nil {
		return nil
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("prune sessions: %w", err)
	}
	return os.WriteFile(path, nil, 0o600)
}

// project prunes one project's sessions folder.
func (p *Pruned) project(dir string, cutoff time.Time) {
	des, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			p.Errors = append(p.Errors, err.Error())
		}
		return
	}
	transcripts := map[string]bool{}
	for _, de := range des {
		if name, ok := strings.CutSuffix(de.Name(), ".jsonl"); ok && de.Type().IsRegular() {
			transcripts[name] = true
		}
	}
	for _, de := range des {
		name := de.Name()
		path := filepath.Join(dir, name)
		switch id, isTranscript := strings.CutSuffix(name, ".jsonl"); {
		case isTranscript && de.Type().IsRegular():
			if p.transcript(path, filepath.Join(dir, id), cutoff) {
				p.Sessions++
			}
		case de.IsDir() && !transcripts[name] && checkID(name) == nil:
			// A side folder whose transcript is gone (pruned by a run cut short, or
			// deleted by hand): removed once it too is old.
			if fi, err := de.Info(); err == nil && fi.ModTime().Before(cutoff) {
				if err := os.RemoveAll(path); err != nil {
					p.Errors = append(p.Errors, err.Error())
				} else {
					p.Orphans++
				}
			}
		}
	}
}

// transcript removes one old session unless it is in use; it reports whether it did.
func (p *Pruned) transcript(path, side string, cutoff time.Time) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Before(cutoff) {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		p.Errors = append(p.Errors, err.Error())
		return false
	}
	defer f.Close()
	// Hold the writers' lock while removing: a session in use holds it already and is
	// kept; one resumed while this runs finds it in use and is forked instead.
	if busy, err := flock.TryLock(f); busy || err != nil {
		return false
	}
	// Written to since it was listed (the lock was just free): keep it.
	if fi, err := f.Stat(); err != nil || !fi.ModTime().Before(cutoff) {
		return false
	}
	if err := os.RemoveAll(side); err != nil {
		p.Errors = append(p.Errors, err.Error())
		return false
	}
	if err := os.Remove(path); err != nil {
		p.Errors = append(p.Errors, err.Error())
		return false
	}
	return true
}
