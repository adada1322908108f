package tui

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/ui"
)

// history is the prompts typed in one project, oldest first, kept in a file of JSON
// strings, one a line (so a prompt of several lines is one entry).
type history struct {
	path    string
	entries []string
	pos     int    // len(entries) when not browsing
	draft   string // what was typed before browsing began
}

const (
	historyMax      = 1000
	historyReadTail = 1 << 20 // a huge or hostile file costs at most this much
)

func loadHistory(path string) *history {
	h := &history{path: path}
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Size() > historyReadTail {
			_, _ = f.Seek(fi.Size()-historyReadTail, io.SeekStart)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), historyReadTail)
		for sc.Scan() {
			var s string
			if json.Unmarshal(sc.Bytes(), &s) == nil && strings.TrimSpace(s) != "" {
				h.entries = append(h.entries, s)
			}
		}
	}
	if len(h.entries) > historyMax {
		h.entries = h.entries[len(h.entries)-historyMax:]
	}
	h.pos = len(h.entries)
	return h
}

// add records a prompt (not twice in a row) and appends it to the file.
func (h *history) add(s string) error {
	h.pos = len(h.entries)
	if strings.TrimSpace(s) == "" || len(h.entries) > 0 && h.entries[len(h.entries)-1] == s {
		h.pos = len(h.entries)
		return nil
	}
	h.entries = append(h.entries, s)
	h.pos = len(h.entries)
	if h.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	line, _ := json.Marshal(s)
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// prev and next browse; current is what the input holds now.
func (h *history) prev(current string) (string, bool) {
	if h.pos == 0 {
		return "", false
	}
	if h.pos == len(h.entries) {
		h.draft = current
	}
	h.pos--
	return h.entries[h.pos], true
}

func (h *history) next() (string, bool) {
	if h.pos >= len(h.entries) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.entries) {
		return h.draft, true
	}
	return h.entries[h.pos], true
}

// search finds the newest entry before index before that contains q; -1 if none.
func (h *history) search(q string, before int) int {
	for i := min(before, len(h.entries)) - 1; i >= 0; i-- {
		if strings.Contains(strings.ToLower(h.entries[i]), strings.ToLower(q)) {
			return i
		}
	}
	return -1
}

// command is a slash command offered for completion.
type command struct{ name, desc string }

// builtinCommands are the REPL's commands (ui.Commands), with what they do.
var builtinCommands = func() []command {
	out := make([]command, len(ui.Commands))
	for i, c := range ui.Commands {
		out[i] = command{name: c[0], desc: c[1]}
	}
	return out
}()

// completions lists what the word being typed can become: slash commands (with their
// descriptions) at the start of the input, paths after @.
func completions(input string, cmds []command, cwd string) (word string, items []command) {
	if strings.HasPrefix(input, "/") && !strings.ContainsAny(input, " \n") {
		for _, c := range cmds {
			if strings.HasPrefix(c.name, input) && c.name != input {
				items = append(items, c)
			}
		}
		return input, items
	}
	i := strings.LastIndexAny(input, " \n\t")
	word = input[i+1:]
	if !strings.HasPrefix(word, "@") {
		return "", nil
	}
	return word, pathCompletions(strings.TrimPrefix(word, "@"), cwd)
}

func pathCompletions(prefix, cwd string) []command {
	dir, base := filepath.Split(prefix)
	full := dir
	if !filepath.IsAbs(full) {
		full = filepath.Join(cwd, dir)
	}
	d, err := os.Open(full)
	if err != nil {
		return nil
	}
	ents, _ := d.ReadDir(5000) // a huge folder costs a keystroke no more than this
	d.Close()
	var out []command
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, base) || strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			n += "/"
		}
		out = append(out, command{name: "@" + dir + n})
		if len(out) == 200 {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
