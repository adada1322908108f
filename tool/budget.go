package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ouroagent/ouro/internal/termsafe"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
)

// DefaultOutputBudget is how many characters of a result the model sees by default.
const DefaultOutputBudget = 30_000

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.*-]`)

// applyBudget keeps a result within the output budget (see Budget.Fit). Its text is first
// made safe for the model (termsafe.ForModel): NUL and the other control characters a
// tool's output can carry (a file's bytes, a program's colours and cursor moves) are shown
// escaped, so none reaches the model, or through it a terminal, raw.
func (r *Registry) applyBudget(t Tool, c Call, res *Result) {
	cloned := false
	for i, b := range res.Content {
		if b.Type != llm.BlockText {
			continue
		}
		if safe := termsafe.ForModel(b.Text); safe != b.Text {
			if !cloned { // the slice may be the tool's own
				res.Content, cloned = slices.Clone(res.Content), true
			}
			res.Content[i].Text = safe
		}
	}
	budget := r.opts.OutputBudget
	if budget == 0 {
		budget = DefaultOutputBudget
	}
	if budget < 0 {
		return
	}
	if b, ok := t.(Budgeted); ok && b.OutputBudget() > 0 {
		budget = b.OutputBudget()
	}
	total := 0
	for _, b := range res.Content {
		if b.Type == llm.BlockText {
			total += utf8.RuneCountInString(b.Text)
		}
	}
	if total <= budget {
		return
	}
	var sb strings.Builder
	for _, b := range res.Content {
		if b.Type == llm.BlockText {
			sb.WriteString(b.Text)
		}
	}
	content := []llm.Block{llm.TextBlock(Budget{Chars: budget, SpillDir: r.opts.SpillDir}.fit(sb.String(), c.ID, res.Omitted))}
	for _, b := range res.Content {
		if b.Type != llm.BlockText {
			content = append(content, b)
		}
	}
	res.Content = content
}

// Budgeted is a tool whose results have a budget of their own (characters the model
// sees; 0 for the registry's): Bash under BASH_MAX_OUTPUT_LENGTH, MCP tools under
// MAX_MCP_OUTPUT_TOKENS.
type Budgeted interface {
	OutputBudget() int
}

// Budget is how much text the model is shown at once, and where the rest goes: tool
// results, and whatever else reaches the conversation from outside (hook output).
type Budget struct {
	// Chars is how many characters are shown; 0 means DefaultOutputBudget.
	Chars int
	// SpillDir receives the whole text when it does not fit ("" means it is not saved).
	SpillDir string
}

// Fit returns text when it is within the budget. Past it, the whole text is written to
// SpillDir/<name>.txt (a "*" in name is replaced by a random string, as os.CreateTemp
// does) and what is returned is a head and a tail with an explicit line saying how much
// was left out and which file to Read for the rest. Nothing is cut silently.
func (b Budget) Fit(text, name string) string { return b.fit(text, name, 0) }

// fit is Fit for a text that is itself already short of omitted characters (see
// Result.Omitted): the note then says the saved file holds the text as the tool gave it,
// not the full output.
func (b Budget) fit(text, name string, omitted int64) string {
	budget := b.Chars
	if budget <= 0 {
		budget = DefaultOutputBudget
	}
	total := utf8.RuneCountInString(text)
	if total <= budget {
		return text
	}
	where := "it could not be saved: no spill directory is configured"
	if b.SpillDir != "" {
		if path, err := spill(b.SpillDir, name, text); err != nil {
			where = "it could not be saved: " + err.Error()
		} else {
			where = spillWhat(omitted) + spillIn + path + spillRead + " with offset/limit to see the rest"
		}
	}
	head, tail := headTail(text, budget/2, budget/2)
	left := total - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	leftLines := strings.Count(text, "\n") - strings.Count(head, "\n") - strings.Count(tail, "\n")
	note := fmt.Sprintf("\n\n[… %d characters (%d lines) of %d left out of this view; %s.]\n\n", left, leftLines, total, where)
	return head + note + tail
}

// The words a budget note names its file with: "<what> is in <path>; Read it …".
const spillIn, spillRead = " is in ", "; Read it"

// spillWhat says what a spill file holds: all of the text, or (when the tool had already
// left part of its output out) only what the tool returned.
func spillWhat(omitted int64) string {
	if omitted <= 0 {
		return fullOutput
	}
	return fmt.Sprintf("what the tool returned (%s characters of its output were already left out by the tool, as the note in the middle of the file says, and are not saved anywhere)", groupThousands(omitted))
}

const fullOutput = "the full output"

var spillNote = regexp.MustCompile(`left out of this view; (the full output|what the tool returned \([^)]*\)) is in (.+?); Read it`)

// SpillFile finds the file a budget note in text names, and whether it holds the full
// output (false: only what the tool returned, its own omission included). "" when text
// has no such note.
func SpillFile(text string) (path string, full bool) {
	m := spillNote.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return m[2], m[1] == fullOutput
}

func groupThousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// spill writes the full output to dir/<name>.txt, name made safe for a file name.
func spill(dir, name, text string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	name = unsafeName.ReplaceAllString(name, "_")
	if name == "" {
		name = "call"
	}
	if strings.Contains(name, "*") {
		f, err := os.CreateTemp(dir, name+".txt")
		if err != nil {
			return "", err
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return f.Name(), err
	}
	path := filepath.Join(dir, name+".txt")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// headTail returns about h characters from the start and t from the end of s, cut at
// line ends when one is near, never inside a character.
func headTail(s string, h, t int) (string, string) {
	head, tail := textcut.HeadTailRunes(s, h, t)
	if head == s {
		return s, ""
	}
	if i := strings.LastIndexByte(head, '\n'); i > len(head)*3/4 {
		head = head[:i+1]
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/4 {
		tail = tail[i+1:]
	}
	return head, tail
}
