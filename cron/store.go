package cron

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ouroagent/ouro/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/flock"
	"github.com/ouroagent/ouro/internal/regfile"
)

// FileName is the durable jobs' file in a project's .ouro (and Claude Code's .claude)
// folder.
const FileName = "scheduled_tasks.json"

// maxFile bounds what is read of a jobs file: 50 jobs of 32 KiB fit; a larger file is
// refused whole, with a message, rather than read.
const maxFile = 2 << 20

// Store is a project's durable jobs: ouro's own file, which it writes, and Claude Code's,
// which it only reads. Writes take a lock file (so two ouro processes in the project do
// not lose each other's changes) and replace the file atomically (a crash leaves the old
// file or the new, never half of one).
type Store struct {
	path, claude, lock string

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	size  int64
	mtime time.Time
	jobs  []Job
	bad   []string
}

// OpenStore returns the store of the project rooted at root.
func OpenStore(root string) *Store {
	return &Store{
		path:   filepath.Join(root, ".ouro", FileName),
		claude: filepath.Join(root, ".claude", FileName),
		lock:   filepath.Join(root, ".ouro", "scheduled_tasks.lock"),
		cache:  map[string]cached{},
	}
}

// Path is ouro's file; ClaudePath is Claude Code's.
func (s *Store) Path() string       { return s.path }
func (s *Store) ClaudePath() string { return s.claude }

// Load returns the durable jobs: ouro's, then Claude Code's whose ids ouro's file does
// not use. problems lists what was skipped and why (a bad entry, a file too large or
// unreadable); a missing file is no problem.
func (s *Store) Load() (jobs []Job, problems []string) {
	own, bad := s.read(s.path)
	problems = append(problems, bad...)
	theirs, bad := s.read(s.claude)
	problems = append(problems, bad...)
	seen := map[string]bool{}
	for _, j := range own {
		seen[j.ID] = true
	}
	jobs = own
	for _, j := range theirs {
		if !seen[j.ID] {
			jobs = append(jobs, j)
		}
	}
	return jobs, problems
}

// read parses one file, reusing the last parse while its size and time are unchanged
// (the scheduler looks every second).
func (s *Store) read(path string) ([]Job, []string) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	s.mu.Lock()
	c, ok := s.cache[path]
	s.mu.Unlock()
	if err == nil && ok && c.size == st.Size() && c.mtime.Equal(st.ModTime()) {
		return c.jobs, c.bad
	}
	jobs, _, bad := parseFile(path)
	if err == nil {
		s.mu.Lock()
		s.cache[path] = cached{size: st.Size(), mtime: st.ModTime(), jobs: jobs, bad: bad}
		s.mu.Unlock()
	}
	return jobs, bad
}

// parseFile reads a jobs file: the jobs that are valid, the raw entries that are not (kept
// as they are when ouro rewrites its file) and what is wrong with them.
func parseFile(path string) (jobs []Job, invalid []json.RawMessage, problems []string) {
	data, err := regfile.Read(path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, []string{fmt.Sprintf("%s: %v; its jobs are ignored", path, err)}
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, []string{fmt.Sprintf(`%s is not {"tasks": [...]} JSON (%v); its jobs are ignored`, path, err)}
	}
	defer func() {
		// A file of thousands of bad entries gets a few lines, not thousands.
		if n := len(problems); n > maxProblems {
			problems = append(problems[:maxProblems], fmt.Sprintf("%s: %d more entries are ignored", path, n-maxProblems))
		}
	}()
	seen := map[string]bool{}
	for _, raw := range f.Tasks {
		j, err := fromRecord(raw, path)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v; that job is ignored", path, err))
			invalid = append(invalid, raw)
		case seen[j.ID]:
			problems = append(problems, fmt.Sprintf("%s: job %s appears twice; the second is ignored", path, j.ID))
			invalid = append(invalid, raw)
		case len(jobs) >= MaxJobs:
			problems = append(problems, fmt.Sprintf("%s holds more than %d jobs; job %s and those after it are ignored", path, MaxJobs, j.ID))
			invalid = append(invalid, raw)
		default:
			seen[j.ID] = true
			jobs = append(jobs, j)
		}
	}
	return jobs, invalid, problems
}

// maxProblems bounds what is reported about one file.
const maxProblems = 5

// Update changes ouro's file under its lock: fn gets the jobs as they are now on disk
// (another process may have changed them) and returns what to keep. Entries ouro cannot
// read are kept as they are. A file that cannot be read at all is not overwritten.
func (s *Store) Update(fn func([]Job) ([]Job, error)) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return fmt.Errorf("scheduled jobs: %w", err)
	}
	lf, err := os.OpenFile(s.lock, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("scheduled jobs: lock: %w", err)
	}
	defer lf.Close()
	if err := flock.Lock(lf, true); err != nil {
		return fmt.Errorf("scheduled jobs: lock: %w", err)
	}
	defer flock.Unlock(lf)

	jobs, invalid, problems := parseFile(s.path)
	if jobs == nil && invalid == nil && len(problems) > 0 {
		return fmt.Errorf("%s; fix or remove the file before ouro changes it", problems[0])
	}
	jobs, err = fn(jobs)
	if err != nil {
		return err
	}
	f := file{Tasks: make([]json.RawMessage, 0, len(jobs)+len(invalid))}
	for _, j := range jobs {
		raw, err := json.Marshal(toRecord(j))
		if err != nil {
			return err
		}
		f.Tasks = append(f.Tasks, raw)
	}
	f.Tasks = append(f.Tasks, invalid...)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.cache, s.path)
	s.mu.Unlock()
	if err := atomicfile.Write(s.path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("scheduled jobs: %w", err)
	}
	return nil
}
