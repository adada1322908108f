package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/ouroagent/ouro/internal/flock"
	"github.com/ouroagent/ouro/llm"
)

// Writer appends entries to one transcript. Each entry is one line written with a single
// write on a file opened with O_APPEND, so a crash leaves at most one partial line at the
// end, which Load skips. A write that fails (a full disk) is the last: every later append
// fails with its error, so the file holds a whole prefix of the session. It is safe for concurrent use; entries are chained by parentUuid
// in the order they reach the file.
type Writer struct {
	id, path, cwd string

	mu        sync.Mutex
	f         *os.File // nil once closed
	last      string   // UUID of the last entry written
	torn      bool     // the file may end in a partial line: start the next write with "\n"
	dirSynced bool
	dirSeq    uint64 // the file's number in its folder's sync state (folderOf)
	// clean: nothing was written since the last sync that succeeded, which a further
	// Sync (Close after the turn's end, as every subagent does) need not repeat.
	clean bool
	buf   bytes.Buffer
	// failed is the first failed write: after it nothing more is appended, so a
	// transcript never has a hole (an entry lost between two that were written).
	failed error
}

// Create starts a new transcript in projectDir/sessions and writes its session line. An
// empty meta.ID gets a fresh UUID v4 and a zero meta.Created the current time. It fails
// if a transcript with that ID already exists.
func Create(projectDir string, meta Meta) (*Writer, error) {
	if meta.ID == "" {
		meta.ID = uuid.NewString()
	}
	if err := checkID(meta.ID); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now()
	}
	meta.Created = meta.Created.UTC()
	dir := SessionsDir(projectDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create session %s: %w", meta.ID, err)
	}
	return create(filepath.Join(dir, meta.ID+".jsonl"), meta)
}

// CreateFile starts a new transcript at path (a name ending in .jsonl, in a folder that
// exists), whose session ID is the file's base name, and writes its session line: a
// subagent's transcript beside its session. It opens the file once (no re-read, as
// OpenAppend would), so a thousand workflow agents cost a thousand opens, not two
// thousand. A zero meta.Created gets the current time. It fails with an error matching
// fs.ErrExist when the file exists, so the caller can pick another name.
func CreateFile(path string, meta Meta) (*Writer, error) {
	if filepath.Ext(path) != ".jsonl" {
		return nil, fmt.Errorf("create session %s: a transcript file name ends in .jsonl", path)
	}
	meta.ID = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if meta.Created.IsZero() {
		meta.Created = time.Now()
	}
	meta.Created = meta.Created.UTC()
	return create(path, meta)
}

// create opens a new transcript at path, locks it and writes meta's session line.
func create(path string, meta Meta) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, existsError(fmt.Sprintf("create session %s: a transcript with this ID already exists: %s", meta.ID, path))
	}
	if err != nil {
		return nil, fmt.Errorf("create session %s: %w", meta.ID, err)
	}
	if _, err := flock.TryLock(f); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("create session %s: lock %s: %w", meta.ID, path, err)
	}
	w := &Writer{id: meta.ID, path: path, cwd: meta.CWD, f: f, dirSeq: folderOf(filepath.Dir(path)).opened()}
	if err := w.AppendEntry(TypeSession, meta); err != nil {
		_ = f.Close()
		_ = os.Remove(path) // a transcript without its session line is worse than none
		return nil, err
	}
	return w, nil
}

// existsError is create's error for a file already there: errors.Is(err, fs.ErrExist).
type existsError string

func (e existsError) Error() string        { return string(e) }
func (e existsError) Is(target error) bool { return target == fs.ErrExist }

// ErrInUse is returned by OpenAppend when another process has the transcript open for
// writing: two writers would interleave their turns and corrupt the session.
var ErrInUse = errors.New("the session is in use by another ouro process")

// OpenAppend continues an existing transcript: new entries chain to its last readable
// entry and carry its session ID and cwd. If the file ends in a partial line (a crash
// mid-write), the next entry starts on a fresh line so it is not glued to the torn one.
// The writer holds an exclusive lock on the file until Close; while another writer holds
// it, OpenAppend fails with ErrInUse (see Fork).
func OpenAppend(path string) (*Writer, error) {
	if filepath.Ext(path) != ".jsonl" {
		return nil, fmt.Errorf("open session %s: a transcript file name ends in .jsonl", path)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	busy, err := flock.TryLock(f)
	if busy || err != nil {
		_ = f.Close()
		if busy {
			return nil, fmt.Errorf("open session %s: %w", path, ErrInUse)
		}
		return nil, fmt.Errorf("open session %s: lock: %w", path, err)
	}
	// Read under the lock: what the last writer left is complete now.
	t, err := Load(path)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open session for appending: %w", err)
	}
	torn, err := endsTorn(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	last := t.Entries[len(t.Entries)-1]
	cwd := t.Meta.CWD
	if cwd == "" {
		cwd = last.CWD
	}
	return &Writer{id: t.ID, path: path, cwd: cwd, f: f, last: last.UUID, torn: torn, dirSeq: folderOf(filepath.Dir(path)).opened()}, nil
}

// Fork starts a new transcript in projectDir that continues t: every entry of t after its
// session line is written again, in order, under the new session's ID, so resuming the fork
// restores the same conversation and state. meta.ForkedFrom is set to t's ID. It is how a
// session that another process is writing is continued without touching it.
func Fork(projectDir string, t *Transcript, meta Meta) (*Writer, error) {
	meta.ForkedFrom = t.ID
	w, err := Create(projectDir, meta)
	if err != nil {
		return nil, err
	}
	for _, e := range t.Entries {
		switch {
		case e.Type == TypeSession:
			continue
		case e.Message != nil:
			err = w.AppendMessage(*e.Message)
		default:
			err = w.AppendEntry(e.Type, e.Data)
		}
		if err != nil {
			_ = w.Close()
			return nil, fmt.Errorf("fork session %s: %w", t.ID, err)
		}
	}
	if err := w.Sync(); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("fork session %s: %w", t.ID, err)
	}
	return w, nil
}

// endsTorn reports whether the file's last byte is not a newline.
func endsTorn(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if st.Size() == 0 {
		return false, nil
	}
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, st.Size()-1); err != nil {
		return false, fmt.Errorf("read last byte: %w", err)
	}
	return b[0] != '\n', nil
}

// ID returns the session ID.
func (w *Writer) ID() string { return w.id }

// Path returns the transcript's path.
func (w *Writer) Path() string { return w.path }

// Dir returns the session's side folder, next to the transcript (<id>/ beside <id>.jsonl),
// where spilled tool results (tool-results/) and subagent transcripts (subagents/) go. It
// is not created here: whoever writes into it creates the subfolder it needs with
// os.MkdirAll, so sessions that never spill anything leave no empty folders behind.
func (w *Writer) Dir() string { return strings.TrimSuffix(w.path, ".jsonl") }

// AppendMessage writes a user or assistant message. A tool_use whose input is not valid
// JSON (a stream cut mid-input) is stored with its raw text as a JSON string, so the line
// stays valid and Transcript.Messages can recognise and repair the call.
func (w *Writer) AppendMessage(m llm.Message) error {
	if m.Role != llm.RoleUser && m.Role != llm.RoleAssistant {
		return fmt.Errorf("session %s: append message: role must be user or assistant, got %q", w.id, m.Role)
	}
	m = storable(m)
	return w.append(string(m.Role), &m, nil)
}

// AppendEntry writes an entry of another type (outcome, compaction, todo state…) whose
// data is any JSON-encodable value; a json.RawMessage is written as is.
func (w *Writer) AppendEntry(typ string, data any) error {
	switch typ {
	case "":
		return fmt.Errorf("session %s: append entry: the type is empty", w.id)
	case TypeUser, TypeAssistant:
		return fmt.Errorf("session %s: append entry: %q entries carry a message: use AppendMessage", w.id, typ)
	}
	return w.append(typ, nil, data)
}

func (w *Writer) append(typ string, msg *llm.Message, data any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("session %s: append %s entry: the writer is closed", w.id, typ)
	}
	if w.failed != nil {
		return fmt.Errorf("session %s: append %s entry: nothing more is written after a failed write, so that what is recorded stays whole: %w", w.id, typ, w.failed)
	}
	id := uuid.NewString()
	e := wireOut{
		Type:      typ,
		UUID:      id,
		SessionID: w.id,
		Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
		CWD:       w.cwd,
		Message:   msg,
		Data:      data,
	}
	if w.last != "" {
		parent := w.last
		e.ParentUUID = &parent
	}
	w.buf.Reset()
	if w.torn {
		w.buf.WriteByte('\n')
	}
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false) // keep code in tool inputs and outputs readable in the file
	if err := enc.Encode(e); err != nil {
		return fmt.Errorf("session %s: encode %s entry: %w", w.id, typ, err)
	}
	_, err := w.f.Write(w.buf.Bytes())
	w.clean = false
	if w.buf.Cap() > 1<<20 {
		w.buf = bytes.Buffer{} // do not keep a large image's buffer for the session's life
	}
	if err != nil {
		w.torn = true                                      // part of the line may have reached the file
		w.failed = fmt.Errorf("session %s: %w", w.id, err) // err names the file
		return w.failed
	}
	w.torn = false
	w.last = id
	return nil
}

// Sync flushes the transcript to disk (fsync). The agent loop calls it at the end of each
// turn; the first call also syncs the sessions folder so the new file's name is durable.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("session %s: sync: the writer is closed", w.id)
	}
	return w.syncLocked()
}

func (w *Writer) syncLocked() error {
	if w.clean && w.dirSynced {
		return nil
	}
	if err := fsync(w.f); err != nil {
		return fmt.Errorf("session %s: sync %s: %w", w.id, w.path, err)
	}
	w.clean = true
	if w.dirSynced {
		return nil
	}
	dir := filepath.Dir(w.path)
	if err := folderOf(dir).sync(dir, w.dirSeq); err != nil {
		return fmt.Errorf("session %s: %w", w.id, err)
	}
	w.dirSynced = true
	return nil
}

// folders is each transcript folder's sync state (one per process), so that the writers
// of many transcripts created in one folder (a workflow's thousand agents) share its
// fsync: one that syncs the folder makes the names of every file created in it before
// durable, and the others' first Sync then skips it.
var folders sync.Map // folder → *folderSync

type folderSync struct {
	created atomic.Uint64 // files whose creation (or opening) in the folder has returned
	mu      sync.Mutex    // held through a folder sync, so others wait for it and skip theirs
	synced  uint64        // created as read before the last folder sync that succeeded
}

func folderOf(dir string) *folderSync {
	if f, ok := folders.Load(dir); ok {
		return f.(*folderSync)
	}
	f, _ := folders.LoadOrStore(dir, &folderSync{})
	return f.(*folderSync)
}

// opened counts one more file created (or opened) in the folder; its writer's first
// Sync must see the folder synced past that count.
func (f *folderSync) opened() uint64 { return f.created.Add(1) }

// sync makes the folder's entries durable up to file number seq, unless a sync since did.
func (f *folderSync) sync(dir string, seq uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.synced >= seq {
		return nil
	}
	upTo := f.created.Load() // every file counted here was created before this sync
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	defer d.Close()
	if err := fsyncFolder(d); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	f.synced = upTo
	return nil
}

// fsync flushes a transcript file (a variable: a test counts the calls).
var fsync = (*os.File).Sync

// fsyncFolder flushes a transcript folder (a variable: a test counts the calls).
var fsyncFolder = (*os.File).Sync

// Close syncs and closes the transcript. Closing twice is not an error.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	syncErr := w.syncLocked()
	closeErr := w.f.Close()
	w.f = nil
	if closeErr != nil {
		return fmt.Errorf("session %s: close %s: %w", w.id, w.path, closeErr)
	}
	return syncErr
}

// storable returns m with every tool_use input that is not valid JSON replaced by a JSON
// string holding the raw text; m itself is not modified.
func storable(m llm.Message) llm.Message {
	copied := false
	for i, b := range m.Content {
		if b.Type != llm.BlockToolUse || len(b.Input) == 0 || json.Valid(b.Input) {
			continue
		}
		if !copied {
			m.Content = append([]llm.Block(nil), m.Content...)
			copied = true
		}
		raw, _ := json.Marshal(string(b.Input)) // marshalling a string cannot fail
		m.Content[i].Input = raw
	}
	return m
}
