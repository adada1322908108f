package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ouroagent/ouro/llm"
)

// Transcript is a transcript read back from disk.
type Transcript struct {
	Path string
	ID   string // the session ID from the file, or the file name if no line says
	Meta Meta   // from the session line; zero if it was missing or unreadable

	// Entries holds every readable line in file order, including types this package does
	// not know.
	Entries []Entry

	// Skipped counts lines that were not valid entries (typically the last line, cut by a
	// crash); Warnings says which and why, one text per problem.
	Skipped  int
	Warnings []string
}

// Load reads a transcript. It is tolerant: a truncated or corrupt line is skipped, counted
// in Skipped and described in Warnings, never fatal. A missing file, an empty file and a
// file without a single readable entry are errors.
func Load(path string) (*Transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	defer f.Close()
	t := &Transcript{Path: path}
	r := bufio.NewReaderSize(f, 64<<10)
	size := 0
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		size += len(line)
		if len(line) > 0 {
			t.add(n, line, err == io.EOF)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("load session %s: line %d: %w", path, n, err)
		}
	}
	if size == 0 {
		return nil, fmt.Errorf("load session %s: the transcript is empty", path)
	}
	if len(t.Entries) == 0 {
		return nil, fmt.Errorf("load session %s: no readable entry (%s)", path, strings.Join(t.Warnings, "; "))
	}
	t.ID = t.sessionID()
	return t, nil
}

// add parses one line; last is true for a final line without a newline, which is what a
// write cut by a crash leaves.
func (t *Transcript) add(n int, line []byte, last bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var w wireIn
	if err := json.Unmarshal(line, &w); err != nil {
		if last {
			t.skip("line %d: truncated, probably by a crash while it was being written (%v); skipped", n, err)
		} else {
			t.skip("line %d: corrupt, not a JSON entry (%v); skipped", n, err)
		}
		return
	}
	switch {
	case w.Type == "":
		t.skip("line %d: the entry has no type; skipped", n)
		return
	case (w.Type == TypeUser || w.Type == TypeAssistant) && w.Message == nil:
		t.skip("line %d: the %s entry has no message; skipped", n, w.Type)
		return
	}
	e := Entry{
		Type:      w.Type,
		UUID:      w.UUID,
		SessionID: w.SessionID,
		CWD:       w.CWD,
		Message:   w.Message,
		Data:      w.Data,
		Line:      n,
	}
	if w.ParentUUID != nil {
		e.ParentUUID = *w.ParentUUID
	}
	if ts, err := time.Parse(time.RFC3339Nano, w.Timestamp); err == nil {
		e.Timestamp = ts
	}
	if e.Message != nil && e.Message.Role == "" {
		e.Message.Role = llm.Role(e.Type)
	}
	if e.Type == TypeSession && t.Meta.ID == "" {
		var m Meta
		if err := json.Unmarshal(e.Data, &m); err != nil {
			t.Warnings = append(t.Warnings, fmt.Sprintf("line %d: the session data is unreadable (%v)", n, err))
		} else {
			m.ID = e.SessionID
			t.Meta = m
		}
	}
	t.Entries = append(t.Entries, e)
}

func (t *Transcript) skip(format string, args ...any) {
	t.Skipped++
	t.Warnings = append(t.Warnings, fmt.Sprintf(format, args...))
}

func (t *Transcript) sessionID() string {
	if t.Meta.ID != "" {
		return t.Meta.ID
	}
	for _, e := range t.Entries {
		if e.SessionID != "" {
			return e.SessionID
		}
	}
	return strings.TrimSuffix(filepath.Base(t.Path), ".jsonl")
}
