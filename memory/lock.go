package memory

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ouroagent/ouro/internal/flock"
)

// lock takes the store for this process (s.mu) and for every other ouro process working
// on the same directory: an advisory lock on DIR.lock beside it, shared for reading and
// exclusive for writing. The lock file sits outside the directory so snapshots and
// listings never see it. unlock releases both.
func (s *Store) lock(exclusive bool) (unlock func(), err error) {
	s.mu.Lock()
	if err := os.MkdirAll(filepath.Dir(s.Dir), 0o700); err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("memory: lock: %w", err)
	}
	f, err := os.OpenFile(s.Dir+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("memory: lock: %w", err)
	}
	if err := flock.Lock(f, exclusive); err != nil {
		f.Close()
		s.mu.Unlock()
		return nil, fmt.Errorf("memory: lock %s: %w", f.Name(), err)
	}
	return func() {
		_ = flock.Unlock(f)
		f.Close()
		s.mu.Unlock()
	}, nil
}
