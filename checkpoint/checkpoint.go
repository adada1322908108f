// Package checkpoint records, before each user prompt, the state of every file ouro's file
// tools (Write, Edit) change during it, so /rewind can put the code back as it was.
//
// A prompt's checkpoint is made lazily: nothing is written until a file is first changed.
// Then the file's content before the change is kept as a blob named by its SHA-256 under
// the session's folder (<session>/checkpoints/blobs/<sum>), and the prompt's manifest
// (<session>/checkpoints/<id>.json) lists each file with its state before (absent, a
// blob, or too big to keep) and the hash ouro last wrote. The list of prompts comes from
// the transcript ("checkpoint" and "rewind" entries), so checkpoints survive resume and
// go with the session's folder when it is deleted. Changes made by Bash or outside ouro
// are not recorded.
package checkpoint

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
	"strings"
	"sync"

	"github.com/ouroagent/ouro/internal/prompttext"
)

// Transcript entry types this package writes and reads back.
const (
	EntryPrompt = "checkpoint" // a prompt began: Prompt's JSON
	EntryRewind = "rewind"     // the conversation was rewound to before a prompt: {"id": n}
	// entryReplace is the transcript's history replacement (compaction, or a rewind's).
	entryReplace = "replace"
)

// DefaultMaxFile is the largest file whose content a checkpoint keeps.
const DefaultMaxFile = 16 << 20

// File is one file a prompt changed, as it was before the prompt changed it.
type File struct {
	Path   string `json:"path"`
	Absent bool   `json:"absent,omitempty"`  // it did not exist: a rewind deletes it
	Sum    string `json:"sum,omitempty"`     // SHA-256 of the content before, the blob's name
	Size   int64  `json:"size"`              // size before
	Mode   uint32 `json:"mode,omitempty"`    // permission bits before
	TooBig bool   `json:"too_big,omitempty"` // larger than the cap: its content was not kept
	// After is the SHA-256 of what ouro last wrote to the file during the prompt; ""
	// when the change did not complete.
	After string `json:"after,omitempty"`
}

// Prompt is one user prompt and the files changed during it.
type Prompt struct {
	ID      int    `json:"id"`
	Session string `json:"session"` // the session whose folder holds its manifest
	At      int    `json:"at"`      // messages in the conversation before the prompt
	Preview string `json:"preview"`
	// Compacted says the conversation was summarised since: it can no longer be rewound
	// to before this prompt (its code still can).
	Compacted bool   `json:"-"`
	Files     []File `json:"-"`

	gen    int  // compaction generation at the start
	loaded bool // Files read from the manifest
}

// Entry is a transcript entry as Load needs it.
type Entry struct {
	Type string
	Data json.RawMessage
}

// Store is one session's checkpoints. It is safe for concurrent use.
type Store struct {
	// MaxFile caps the size of a file whose content is kept; 0 means DefaultMaxFile.
	MaxFile int64
	// Within, when set, says whether a path is in the session's workspace: a restore
	// never touches one that is not (a manifest edited on disk cannot aim it elsewhere).
	// Set it before the tools run.
	Within func(path string) bool

	sessions string // the folder holding every session's folder
	session  string // this session's ID
	record   func(typ string, data any) error
	sync     func() error // makes what was recorded durable (nil: nothing to do)

	mu      sync.Mutex
	prompts []*Prompt // live prompts, oldest first
	cur     *Prompt   // the prompt running now
	gen     int       // compactions so far
	next    int       // the next prompt ID
}

// Open returns the store of session, whose folder is sessions/<session>; record appends
// an entry to the session's transcript. history is the transcript's entries so far (the
// prompt, rewind and replace ones; others are ignored).
func Open(sessions, session string, record func(typ string, data any) error, history []Entry) *Store {
	s := &Store{sessions: sessions, session: session, record: record, next: 1}
	skipReplace := false
	for _, e := range history {
		switch e.Type {
		case EntryPrompt:
			var p Prompt
			if json.Unmarshal(e.Data, &p) != nil || p.ID <= 0 || !validSession(p.Session) {
				continue
			}
			p.gen = s.gen
			s.prompts = append(s.prompts, &p)
			s.next = max(s.next, p.ID+1)
		case EntryRewind:
			var r struct{ ID int }
			if json.Unmarshal(e.Data, &r) == nil {
				s.dropFrom(r.ID)
				skipReplace = true
			}
		case entryReplace:
			if skipReplace {
				skipReplace = false // the rewind's own replacement keeps a prefix
				continue
			}
			s.gen++
		}
	}
	return s
}

// validSession keeps a session ID read back from a transcript to the characters a
// session ID may have, so it cannot name a folder elsewhere.
func validSession(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range id {
		if !(r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')) {
			return false
		}
	}
	return true
}

func (s *Store) dropFrom(id int) {
	for i, p := range s.prompts {
		if p.ID >= id {
			s.prompts = s.prompts[:i]
			return
		}
	}
}

func (s *Store) maxFile() int64 {
	if s.MaxFile > 0 {
		return s.MaxFile
	}
	return DefaultMaxFile
}

func (s *Store) dir(session string) string {
	return filepath.Join(s.sessions, session, "checkpoints")
}

// Begin starts the checkpoint of a new prompt; at is the number of messages in the
// conversation before it. It is recorded in the transcript; no file is written.
func (s *Store) Begin(at int, prompt string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &Prompt{ID: s.next, Session: s.session, At: at, Preview: preview(prompt), gen: s.gen, loaded: true}
	s.next++
	s.prompts = append(s.prompts, p)
	s.cur = p
	return s.record(EntryPrompt, p)
}

// Compacted notes that the conversation was summarised: earlier prompts can no longer
// have their conversation rewound.
func (s *Store) Compacted() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
}

// preview is a prompt in a line, as the person typed it (prompttext.Readable).
func preview(prompt string) string {
	lines := strings.Split(prompttext.Readable(prompt), "\n")
	// The !commands sent with a prompt come first: they show beside its first line.
	n := 0
	for n < len(lines)-1 && strings.HasPrefix(lines[n], "! ") {
		n++
	}
	line := strings.Join(lines[:n+1], " · ")
	if n+1 < len(lines) {
		line += " …"
	}
	if r := []rune(line); len(r) > 60 {
		line = string(r[:59]) + "…"
	}
	return line
}

// BeforeChange implements tools.ChangeRecorder: the first time the current prompt changes
// path, its state is kept.
func (s *Store) BeforeChange(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.cur
	if p == nil {
		return nil
	}
	for _, f := range p.Files {
		if f.Path == path {
			return nil
		}
	}
	f, err := s.snapshot(path)
	if err != nil {
		return err
	}
	p.Files = append(p.Files, f)
	return s.save(p)
}

// Changed implements tools.ChangeRecorder.
func (s *Store) Changed(path string, sum [sha256.Size]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.cur
	if p == nil {
		return
	}
	for i := range p.Files {
		if p.Files[i].Path == path {
			p.Files[i].After = hex.EncodeToString(sum[:])
			_ = s.save(p) // the in-memory record stays right; a failed save showed at BeforeChange
		}
	}
}

// snapshot reads path's state now, keeping its content as a blob.
func (s *Store) snapshot(path string) (File, error) {
	f := File{Path: path}
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		f.Absent = true
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if !info.Mode().IsRegular() {
		return f, fmt.Errorf("it is not a regular file (%s)", info.Mode().Type())
	}
	f.Size, f.Mode = info.Size(), uint32(info.Mode().Perm())
	if info.Size() > s.maxFile() {
		f.TooBig = true
		return f, nil
	}
	data, err := readNoFollow(path, s.maxFile())
	if err != nil {
		return f, err
	}
	if int64(len(data)) > s.maxFile() {
		f.TooBig, f.Size = true, int64(len(data))
		return f, nil
	}
	sum := sha256.Sum256(data)
	f.Sum, f.Size = hex.EncodeToString(sum[:]), int64(len(data))
	blobs := filepath.Join(s.dir(s.session), "blobs")
	blob := filepath.Join(blobs, f.Sum)
	if _, err := os.Stat(blob); err == nil {
		return f, nil
	}
	if err := os.MkdirAll(blobs, 0o700); err != nil {
		return f, err
	}
	return f, atomicfile.Write(blob, data, 0o600)
}

// save writes p's manifest.
func (s *Store) save(p *Prompt) error {
	dir := s.dir(p.Session)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(p.Files)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, fmt.Sprintf("%d.json", p.ID)), data, 0o600)
}

// load reads p's manifest once; a prompt that changed no file has none.
func (s *Store) load(p *Prompt) error {
	if p.loaded {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(s.dir(p.Session), fmt.Sprintf("%d.json", p.ID)))
	if errors.Is(err, fs.ErrNotExist) {
		p.loaded = true
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &p.Files); err != nil {
		return fmt.Errorf("checkpoint %d of session %s is unreadable: %w", p.ID, p.Session, err)
	}
	p.loaded = true
	return nil
}

// Prompts lists the live prompts, oldest first, with the files each changed. A manifest
// that cannot be read is reported in the error; the list is still returned.
func (s *Store) Prompts() ([]Prompt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	out := make([]Prompt, 0, len(s.prompts))
	for _, p := range s.prompts {
		if err := s.load(p); err != nil {
			errs = append(errs, err)
		}
		c := *p
		c.Files = append([]File(nil), p.Files...)
		c.Compacted = p.gen != s.gen
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

// ConversationRewound records that the conversation was cut back to before prompt id:
// that prompt and every later one leave the list. The caller then records the shortened
// history (a "replace" entry), which Open knows to be the rewind's.
func (s *Store) ConversationRewound(id int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropFrom(id)
	s.cur = nil
	return s.record(EntryRewind, map[string]int{"id": id})
}

// find returns the live prompt id and the ones after it.
func (s *Store) find(id int) ([]*Prompt, error) {
	for i, p := range s.prompts {
		if p.ID == id {
			return s.prompts[i:], nil
		}
	}
	return nil, fmt.Errorf("no prompt %d in this session's checkpoints", id)
}

// At says how many messages the conversation had before prompt id, or why it cannot be
// rewound to it.
func (s *Store) At(id int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps, err := s.find(id)
	if err != nil {
		return 0, err
	}
	if ps[0].gen != s.gen {
		return 0, errors.New("the conversation was compacted since that prompt, so it cannot be rewound to before it; its code still can be")
	}
	return ps[0].At, nil
}
