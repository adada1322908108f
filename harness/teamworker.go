package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/internal/flock"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/team"
)

// deliveredBefore returns the ids of the messages the last run of worker name had in its
// transcript, which its status file names: a worker killed after persisting a message
// but before acknowledging it must not be handed it again. Only a transcript under home
// (ouro's own) is read.
func deliveredBefore(statusPath, name, home string) ([]string, error) {
	data, err := os.ReadFile(statusPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s team.Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v)", statusPath, err)
	}
	var ids []string
	for _, m := range s.Members {
		if m.Name != name || m.Transcript == "" {
			continue
		}
		rel, err := filepath.Rel(home, m.Transcript)
		if err != nil || !filepath.IsAbs(m.Transcript) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s names a transcript outside %s (%s); it is not read", statusPath, home, m.Transcript)
		}
		t, err := session.Load(m.Transcript)
		if errors.Is(err, fs.ErrNotExist) {
			continue // it never wrote one
		}
		if err != nil {
			return nil, err
		}
		msgs, _ := t.Messages()
		ids = append(ids, mailbox.IDsIn(msgs)...)
	}
	return ids, nil
}

// teamRoster names the members of team that the status files under dir show: the lead's
// in-process teammates and every worker process (ouro team worker). A damaged file is
// skipped; it is rewritten at its team's next change.
func teamRoster(dir, name string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, name+".worker-*.json"))
	paths = append(paths, filepath.Join(dir, name+".json"))
	var out []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var s team.Snapshot
		if json.Unmarshal(data, &s) != nil || s.Team != name {
			continue
		}
		for _, m := range s.Members {
			out = append(out, m.Name)
		}
	}
	return out
}

// lockWorker holds worker name of team on this machine while it runs: two processes
// answering to one name would take each other's messages (each could stage the same one
// before the other acknowledged it). The kernel drops the lock when the process dies,
// kill -9 included, so a restart is never refused because of a crash.
func lockWorker(statusPath, team, name string) (unlock func(), err error) {
	path := strings.TrimSuffix(statusPath, ".json") + ".lock"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	busy, err := flock.TryLock(f)
	if err == nil && busy {
		err = fmt.Errorf("a worker named %q of team %s is already running on this machine; give this one another --name", name, team)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
