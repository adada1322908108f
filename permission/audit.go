package permission

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/tool"
)

// Kinds of audit records.
const (
	AuditDecision = "decision" // a permission decision on a call
	AuditRun      = "run"      // a call that ran: status and duration
	AuditFile     = "file"     // a file a call changed: hashes before and after
)

// AuditRecord is one line of audit.jsonl.
type AuditRecord struct {
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"`
	Session   string    `json:"session,omitempty"`
	ToolUseID string    `json:"tool_use_id,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	// Input summarizes the call: the command, the path, the URL.
	Input string `json:"input,omitempty"`
	// Decision is allow or deny (kind decision).
	Decision string `json:"decision,omitempty"`
	// Source is what decided: the rule and its file, the mode, the hook, the user.
	Source string `json:"source,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Status and DurationMS describe a run: ok, error or interrupted.
	Status     string `json:"status,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	// Path, HashBefore and HashAfter describe a changed file; an empty hash means the
	// file did not exist.
	Path       string `json:"path,omitempty"`
	HashBefore string `json:"hash_before,omitempty"`
	HashAfter  string `json:"hash_after,omitempty"`
}

// String renders a record as one readable line, for `ouro audit`.
func (r AuditRecord) String() string {
	ts := r.Time.Local().Format("2006-01-02 15:04:05")
	switch r.Kind {
	case AuditRun:
		return fmt.Sprintf("%s  run       %-10s %s %s in %s", ts, r.Tool, r.Status, r.ToolUseID, time.Duration(r.DurationMS)*time.Millisecond)
	case AuditFile:
		before, after := orNone(r.HashBefore), orNone(r.HashAfter)
		return fmt.Sprintf("%s  file      %s %s → %s", ts, r.Path, before, after)
	case AuditDecision:
		s := fmt.Sprintf("%s  %-9s %-10s %s  [%s]", ts, r.Decision, r.Tool, r.Input, r.Source)
		if r.Reason != "" && r.Decision == "deny" {
			s += "  " + r.Reason
		}
		return s
	}
	// Records of other kinds (hook runs, say) show whatever they carry.
	var parts []string
	for _, f := range []string{r.Tool, r.Input, r.Status, r.Decision} {
		if f != "" {
			parts = append(parts, f)
		}
	}
	s := fmt.Sprintf("%s  %-9s %s", ts, r.Kind, strings.Join(parts, " "))
	if r.DurationMS > 0 {
		s += " in " + (time.Duration(r.DurationMS) * time.Millisecond).String()
	}
	if r.Source != "" {
		s += "  [" + r.Source + "]"
	}
	if r.Reason != "" {
		s += "  " + r.Reason
	}
	return s
}

func orNone(h string) string {
	if h == "" {
		return "(none)"
	}
	if len(h) > 19 {
		return h[:19] // "sha256:" and 12 hex digits
	}
	return h
}

// Audit appends records to an audit.jsonl file. Each record is one write of one line to
// a file opened for appending, so records from concurrent sessions do not interleave.
// A record that cannot be written (a full disk, a closed log) never stops what it
// records: the audit keeps the first failure (Err) and tells OnFailure's function about
// it once. A nil *Audit records nothing. It is safe for concurrent use.
type Audit struct {
	path string

	mu        sync.Mutex
	f         *os.File
	session   string
	now       func() time.Time
	failed    error
	onFailure func(error)
}

// OpenAudit opens (creating it and its folder if needed) the audit log at path.
func OpenAudit(path string) (*Audit, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit %s: %w", path, err)
	}
	return &Audit{path: path, f: f, now: time.Now}, nil
}

// Path is the file records are appended to.
func (a *Audit) Path() string {
	if a == nil {
		return ""
	}
	return a.path
}

// SetSession names the session the following records belong to.
func (a *Audit) SetSession(id string) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.session = id
}

// OnFailure sets the function told about the first record that could not be written,
// so the user learns the log is incomplete; it is called once, outside the audit's lock.
func (a *Audit) OnFailure(f func(error)) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.onFailure = f
}

// Err is the first failure to write a record, if any.
func (a *Audit) Err() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.failed
}

// Record appends r, filling in the time and session when they are unset.
func (a *Audit) Record(r AuditRecord) {
	if a == nil {
		return
	}
	a.mu.Lock()
	err := a.write(r)
	var tell func(error)
	if err != nil && a.failed == nil {
		a.failed, tell = err, a.onFailure
	}
	a.mu.Unlock()
	if tell != nil {
		tell(err)
	}
}

func (a *Audit) write(r AuditRecord) error {
	if a.f == nil {
		return fmt.Errorf("audit %s: closed", a.path)
	}
	if r.Time.IsZero() {
		r.Time = a.now().UTC()
	}
	if r.Session == "" {
		r.Session = a.session
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("audit %s: %w", a.path, err)
	}
	_, err = a.f.Write(append(line, '\n')) // a *PathError: it names the file
	return err
}

// RecordDecision appends a permission decision on c.
func (a *Audit) RecordDecision(c tool.Call, decision, source, reason string) {
	a.Record(AuditRecord{Kind: AuditDecision, ToolUseID: c.ID, Tool: c.Name, Input: SummarizeInput(c),
		Decision: decision, Source: source, Reason: reason})
}

// RecordRun appends the run of c: its status (ok, error, interrupted) and how long it took.
func (a *Audit) RecordRun(c tool.Call, status string, d time.Duration) {
	a.Record(AuditRecord{Kind: AuditRun, ToolUseID: c.ID, Tool: c.Name, Input: SummarizeInput(c),
		Status: status, DurationMS: d.Milliseconds()})
}

// RecordFileChange appends a change of the file at path; hashes come from FileHash.
func (a *Audit) RecordFileChange(path, hashBefore, hashAfter string) {
	a.Record(AuditRecord{Kind: AuditFile, Path: path, HashBefore: hashBefore, HashAfter: hashAfter})
}

// Close closes the log; later records fail.
func (a *Audit) Close() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// FileHash returns "sha256:<hex>" of the file at path, or "" when it does not exist.
func FileHash(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// ReadAudit reads every record of an audit log. A torn last line (a crash while
// writing) is skipped; any other line that is not a record is reported in the error,
// with its number, after the records that could be read.
func ReadAudit(path string) ([]AuditRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	var out []AuditRecord
	var bad []string
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r AuditRecord
		if err := json.Unmarshal(line, &r); err != nil {
			if i == len(lines)-1 {
				continue // no newline after it: torn by a crash mid-write
			}
			bad = append(bad, fmt.Sprintf("line %d: %v", i+1, err))
			continue
		}
		out = append(out, r)
	}
	if len(bad) > 0 {
		return out, fmt.Errorf("audit %s: %s", path, strings.Join(bad, "; "))
	}
	return out, nil
}

// SummarizeInput is the short form of a call's input kept in the audit and shown in
// prompts: the command, the path, the URL, or the compact JSON.
func SummarizeInput(c tool.Call) string {
	var in struct {
		Command      string `json:"command"`
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Path         string `json:"path"`
		Pattern      string `json:"pattern"`
		URL          string `json:"url"`
	}
	if json.Unmarshal(c.Input, &in) == nil {
		for _, s := range []string{in.Command, in.FilePath, in.NotebookPath, in.URL} {
			if s != "" {
				return clipText(s, 500)
			}
		}
		if in.Pattern != "" {
			return clipText(strings.TrimSpace(in.Pattern+" "+in.Path), 500)
		}
	}
	return clipText(string(c.Input), 500)
}
