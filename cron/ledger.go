package cron

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ouroagent/ouro/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/flock"
	"github.com/ouroagent/ouro/internal/regfile"
)

// LedgerName is the ledger's file in the project's state folder (under ouro's home,
// outside the repository, where a cloned project cannot write).
const LedgerName = "cron.json"

// Ledger is what ouro keeps about durable jobs outside the project: which jobs the user
// approved (by a digest of their content) and, for jobs in Claude Code's file, which ouro
// only reads, when they last fired and whether a one-shot is done.
//
// A durable job runs as if the user had typed its prompt, with the user's permissions.
// A file in a cloned repository must not get that for free: a job runs only when the
// user created it in ouro (CronCreate approves it as it writes it) or approved it once.
type Ledger struct {
	path string

	mu     sync.Mutex
	cached ledgerFile
	size   int64
	mtime  time.Time
	valid  bool
}

type ledgerFile struct {
	Approved map[string]int64      `json:"approved,omitempty"` // digest → epoch ms
	Claude   map[string]claudeMark `json:"claude,omitempty"`   // digest → state
}

type claudeMark struct {
	LastFiredAt int64 `json:"lastFiredAt,omitempty"`
	Done        bool  `json:"done,omitempty"`
}

// OpenLedger returns the ledger of the project whose state lives in projectDir.
func OpenLedger(projectDir string) *Ledger {
	return &Ledger{path: filepath.Join(projectDir, LedgerName)}
}

// Path is where the ledger is kept.
func (l *Ledger) Path() string { return l.path }

// Digest identifies a durable job's content: where it is kept, its id, schedule and
// prompt. An approval holds for exactly that content.
func Digest(j Job) string {
	h := sha256.New()
	for _, s := range []string{filepath.Base(filepath.Dir(j.Source)), j.ID, j.Cron, j.Prompt, strconv.FormatBool(j.Recurring)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// load reads the ledger, reusing the last read while the file's size and time are the
// same (the scheduler asks about every job every second).
func (l *Ledger) load() (ledgerFile, error) {
	st, serr := os.Stat(l.path)
	l.mu.Lock()
	if serr == nil && l.valid && st.Size() == l.size && st.ModTime().Equal(l.mtime) {
		f := l.cached
		l.mu.Unlock()
		return f, nil
	}
	l.mu.Unlock()
	f, err := l.read()
	if err == nil && serr == nil {
		l.mu.Lock()
		l.cached, l.size, l.mtime, l.valid = f, st.Size(), st.ModTime(), true
		l.mu.Unlock()
	}
	return f, err
}

func (l *Ledger) read() (ledgerFile, error) {
	var f ledgerFile
	data, err := regfile.Read(l.path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("%s does not parse (%v)", l.path, err)
	}
	return f, nil
}

// Approved reports whether the user created or approved j's content. A ledger that
// cannot be read approves nothing.
func (l *Ledger) Approved(j Job) bool {
	f, err := l.load()
	if err != nil {
		return false
	}
	_, ok := f.Approved[Digest(j)]
	return ok
}

// Approve records that jobs may run.
func (l *Ledger) Approve(now time.Time, jobs ...Job) error {
	return l.update(func(f *ledgerFile) {
		if f.Approved == nil {
			f.Approved = map[string]int64{}
		}
		for _, j := range jobs {
			f.Approved[Digest(j)] = now.UnixMilli()
		}
	})
}

// mark returns what the ledger knows of a job in Claude Code's file.
func (l *Ledger) mark(j Job) claudeMark {
	f, _ := l.load()
	return f.Claude[Digest(j)]
}

func (l *Ledger) setMark(j Job, m claudeMark) error {
	return l.update(func(f *ledgerFile) {
		if f.Claude == nil {
			f.Claude = map[string]claudeMark{}
		}
		f.Claude[Digest(j)] = m
	})
}

func (l *Ledger) update(fn func(*ledgerFile)) error {
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return err
	}
	lf, err := os.OpenFile(l.path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lf.Close()
	if err := flock.Lock(lf, true); err != nil {
		return err
	}
	defer flock.Unlock(lf)
	f, err := l.read()
	if err != nil {
		return fmt.Errorf("%v; fix or remove it", err)
	}
	fn(&f)
	l.mu.Lock()
	l.valid = false
	l.mu.Unlock()
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(l.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("scheduled jobs: %w", err)
	}
	return nil
}
