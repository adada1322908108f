package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ouroagent/ouro/tools"
)

// question is the model's question (AskUserQuestion) as a picker: Up and Down (or k
// and j) move the highlight, Enter takes the highlighted option, a digit takes its
// option at once. The last line, "Type something else", takes the answer in the
// user's own words. With multiSelect, Space (or a digit) marks options and Enter sends
// the marked ones (the highlighted one when none is marked). Several questions are
// asked one after the other.
type question struct {
	qs     []tools.Question
	at     int // the question shown
	sel    int // the highlighted line: an option, or len(options) for "something else"
	marked map[int]bool
	text   *string // non-nil while the own-words answer is typed
	out    []tools.Answer
	reply  chan []tools.Answer
	hint   string
}

// key handles one key press; it returns the answers once every question has one.
func (q *question) key(k, text string) ([]tools.Answer, bool) {
	cur := q.qs[q.at]
	n := len(cur.Options) + 1
	if q.text != nil {
		switch k {
		case "enter":
			if strings.TrimSpace(*q.text) == "" {
				return nil, false
			}
			return q.answer(tools.Answer{Question: cur.Question, Text: strings.TrimSpace(*q.text)})
		case "esc":
			q.text = nil
		case "backspace":
			if rs := []rune(*q.text); len(rs) > 0 {
				*q.text = string(rs[:len(rs)-1])
			}
		case "space":
			*q.text += " "
		default:
			*q.text += text
		}
		return nil, false
	}
	q.hint = ""
	switch k {
	case "up", "k":
		q.sel = (q.sel + n - 1) % n
		return nil, false
	case "down", "j":
		q.sel = (q.sel + 1) % n
		return nil, false
	case "space":
		if cur.MultiSelect && q.sel < len(cur.Options) {
			q.marked[q.sel] = !q.marked[q.sel]
		}
		return nil, false
	case "enter":
		return q.pick(q.sel)
	}
	if d, err := strconv.Atoi(k); err == nil && d >= 1 && d <= n {
		if cur.MultiSelect && d <= len(cur.Options) {
			q.sel = d - 1
			q.marked[q.sel] = !q.marked[q.sel]
			return nil, false
		}
		return q.pick(d - 1)
	}
	q.hint = fmt.Sprintf("%q is not an answer: choose with ↑/↓ and Enter, or press 1 to %d; Esc interrupts the turn", k, n)
	return nil, false
}

// pick takes line i: an option (with the marked ones, for multiSelect) or the own words.
func (q *question) pick(i int) ([]tools.Answer, bool) {
	cur := q.qs[q.at]
	if i >= len(cur.Options) {
		s := ""
		q.text = &s
		return nil, false
	}
	ans := tools.Answer{Question: cur.Question}
	for j, o := range cur.Options {
		if q.marked[j] {
			ans.Labels = append(ans.Labels, o.Label)
		}
	}
	if len(ans.Labels) == 0 {
		ans.Labels = []string{cur.Options[i].Label}
	}
	return q.answer(ans)
}

// answer records the answer to the question shown and moves to the next one.
func (q *question) answer(a tools.Answer) ([]tools.Answer, bool) {
	q.out = append(q.out, a)
	q.at, q.sel, q.marked, q.text = q.at+1, 0, map[int]bool{}, nil
	return q.out, q.at == len(q.qs)
}

// view draws the question shown, its options and the keys.
func (q *question) view(t *theme, width int) string {
	inner := max(width-4, 20)
	cur := q.qs[q.at]
	var b []string
	head := cur.Question
	if cur.Header != "" {
		head = "[" + cur.Header + "] " + head
	}
	if len(q.qs) > 1 {
		head += fmt.Sprintf(" (%d of %d)", q.at+1, len(q.qs))
	}
	b = append(b, t.warn.Render(head))
	if q.text != nil {
		b = append(b, "Your answer (Enter sends; Esc goes back to the options):", "> "+*q.text+"█")
	} else {
		lines := make([]string, 0, len(cur.Options)+1)
		for i, o := range cur.Options {
			l := fmt.Sprintf("%d. ", i+1)
			if cur.MultiSelect {
				l += map[bool]string{true: "[x] ", false: "[ ] "}[q.marked[i]]
			}
			l += o.Label
			if o.Description != "" {
				l += " — " + o.Description
			}
			lines = append(lines, l)
		}
		lines = append(lines, fmt.Sprintf("%d. Type something else", len(cur.Options)+1))
		for i, l := range lines {
			if i == q.sel {
				for j, w := range strings.Split(ansi.Wrap(l, inner-2, ""), "\n") {
					b = append(b, map[bool]string{true: "❯ ", false: "  "}[j == 0]+t.selected.Render(w))
				}
				continue
			}
			b = append(b, "  "+l)
		}
		keys := "↑/↓ choose · Enter confirms · the digit answers at once · Esc interrupts"
		if cur.MultiSelect {
			keys = "↑/↓ move · Space or the digit marks · Enter sends the marked · Esc interrupts"
		}
		b = append(b, t.dim.Render(keys))
	}
	if q.hint != "" {
		b = append(b, t.warn.Render(q.hint))
	}
	var out []string
	for _, l := range b {
		out = append(out, strings.Split(ansi.Wrap(l, inner, ""), "\n")...)
	}
	return t.dialog.Width(width).Render(strings.Join(slices.Clip(out), "\n"))
}
