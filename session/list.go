package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
)

// Errors Latest and Find wrap, for callers that react to the kind of failure.
var (
	ErrNoSessions = errors.New("no sessions for this directory")
	ErrNotFound   = errors.New("no session with that ID")
	ErrAmbiguous  = errors.New("ambiguous session ID prefix")
)

// summaryLen bounds Info.Summary, in characters.
const summaryLen = 80

// Info describes a transcript for listing and picking one to resume.
type Info struct {
	ID       string
	Path     string
	Modified time.Time // the file's last write
	Summary  string    // the first user prompt, on one line, clipped
	Messages int       // user and assistant entries
}

// List returns the project's sessions, most recently written first. A project without a
// sessions folder has none; that is not an error.
func List(projectDir string) ([]Info, error) {
	dir := SessionsDir(projectDir)
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	var out []Info
	for _, de := range des {
		name := de.Name()
		if de.IsDir() || filepath.Ext(name) != ".jsonl" {
			continue
		}
		info, err := describe(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed while we were listing
		}
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Modified.Equal(out[j].Modified) {
			return out[i].Modified.After(out[j].Modified)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// listLine is the part of a line List needs; decoding into it skips everything else,
// such as images.
type listLine struct {
	Type    string `json:"type"`
	Message *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"message"`
}

func describe(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Info{}, fmt.Errorf("stat %s: %w", path, err)
	}
	info := Info{
		ID:       strings.TrimSuffix(filepath.Base(path), ".jsonl"),
		Path:     path,
		Modified: st.ModTime(),
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		var l listLine
		if len(line) > 0 && json.Unmarshal(line, &l) == nil && l.Message != nil &&
			(l.Type == TypeUser || l.Type == TypeAssistant) {
			info.Messages++
			if info.Summary == "" && l.Type == TypeUser {
				for _, b := range l.Message.Content {
					if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
						info.Summary = textcut.Runes(strings.Join(strings.Fields(b.Text), " "), summaryLen, "…")
						break
					}
				}
			}
		}
		if err == io.EOF {
			return info, nil
		}
		if err != nil {
			return Info{}, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// Latest returns the most recently written session that has at least one message, for
// --continue: a session opened and left before the first prompt is not a conversation.
func Latest(projectDir string) (Info, error) {
	all, err := List(projectDir)
	if err != nil {
		return Info{}, err
	}
	if len(all) == 0 {
		return Info{}, fmt.Errorf("%w: no transcripts in %s", ErrNoSessions, SessionsDir(projectDir))
	}
	for _, in := range all {
		if in.Messages > 0 {
			return in, nil
		}
	}
	return Info{}, fmt.Errorf("%w: the %d sessions in %s have no messages yet", ErrNoSessions, len(all), SessionsDir(projectDir))
}

// Find returns the session whose ID is idOrPrefix, or else the only one whose ID starts
// with it, for --resume.
func Find(projectDir, idOrPrefix string) (Info, error) {
	if idOrPrefix == "" {
		return Info{}, fmt.Errorf("find session: the ID is empty")
	}
	all, err := List(projectDir)
	if err != nil {
		return Info{}, err
	}
	dir := SessionsDir(projectDir)
	if len(all) == 0 {
		return Info{}, fmt.Errorf("find session %q: %w: no transcripts in %s", idOrPrefix, ErrNoSessions, dir)
	}
	var matches []Info
	for _, in := range all {
		if in.ID == idOrPrefix {
			return in, nil
		}
		if strings.HasPrefix(in.ID, idOrPrefix) {
			matches = append(matches, in)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return Info{}, fmt.Errorf("find session %q: %w in %s; most recent: %s",
			idOrPrefix, ErrNotFound, dir, describeAll(all, 5))
	default:
		return Info{}, fmt.Errorf("find session %q: %w: it matches %s",
			idOrPrefix, ErrAmbiguous, describeAll(matches, 10))
	}
}

// describeAll names up to n sessions, with their summaries, for an error message.
func describeAll(infos []Info, n int) string {
	var parts []string
	for i, in := range infos {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(infos)-n))
			break
		}
		s := in.ID
		if in.Summary != "" {
			s += fmt.Sprintf(" (%q)", textcut.Runes(in.Summary, 40, "…"))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
