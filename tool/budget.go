package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
)

// DefaultOutputBudget is how many characters of a result the model sees by default.
const DefaultOutputBudget = 30_000

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// applyBudget keeps a result within the output budget. Past it, the whole text is written
// to the spill directory and the model sees a head and a tail with an explicit line saying
// how much was left out and which file to Read for the rest. Nothing is cut silently.
func (r *Registry) applyBudget(c Call, res *Result) {
	budget := r.opts.OutputBudget
	if budget == 0 {
		budget = DefaultOutputBudget
	}
	if budget < 0 {
		return
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
	full := sb.String()

	where := "it could not be saved: no spill directory is configured"
	if r.opts.SpillDir != "" {
		if path, err := spill(r.opts.SpillDir, c, full); err != nil {
			where = "it could not be saved: " + err.Error()
		} else {
			where = "the full output is in " + path + "; Read it with offset/limit to see the rest"
		}
	}
	head, tail := headTail(full, budget/2, budget/2)
	left := total - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	leftLines := strings.Count(full, "\n") - strings.Count(head, "\n") - strings.Count(tail, "\n")
	note := fmt.Sprintf("\n\n[… %d characters (%d lines) of %d left out of this view; %s.]\n\n", left, leftLines, total, where)

	content := []llm.Block{llm.TextBlock(head + note + tail)}
	for _, b := range res.Content {
		if b.Type != llm.BlockText {
			content = append(content, b)
		}
	}
	res.Content = content
}

// spill writes the full output to dir/<tool_use_id>.txt.
func spill(dir string, c Call, text string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	name := unsafeName.ReplaceAllString(c.ID, "_")
	if name == "" {
		name = "call"
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
