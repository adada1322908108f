package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ouroagent/ouro/permission"
)

// dialog asks about one call the permission policy could not decide. Up and Down (or k
// and j) move the highlight over the choices and Enter takes the highlighted one; the
// keys 1/y once, 2/s this session, 3/a always (both only when a rule can say it), 4/n no
// answer at once. No then takes a reason for the model (Enter sends it; Esc goes back).
// An Enter in the first moments after the dialog opens is held back, since it was
// meant for the prompt being typed. Any other key answers nothing and says which keys do.
type dialog struct {
	p      permission.Prompt
	diff   []diffLine
	reply  chan permission.Answer
	saveTo string  // the file an "always" writes (the project's settings.local.json)
	reason *string // non-nil while the reason for a "no" is typed
	hint   string
	sel    int       // the highlighted choice, an index into choices()
	opened time.Time // when the dialog showed
}

// enterGrace is how long after the dialog opens an Enter does not choose.
const enterGrace = 400 * time.Millisecond

// choice is one line of the dialog: the keys that take it, what it answers, its text.
type choice struct {
	digit, letter string
	choice        permission.Choice
	label         string
}

// choices are the dialog's answers in the order shown; a session or "always" answer
// only when a rule can say what it allows.
func (d *dialog) choices() []choice {
	cs := []choice{{"1", "y", permission.Once, "Yes, once"}}
	if r := d.p.SuggestedRule; r != "" {
		cs = append(cs, choice{"2", "s", permission.Session, "Yes, for this session: allow " + r},
			choice{"3", "a", permission.Always, "Always: save " + r + " to " + d.saveTo})
	}
	return append(cs, choice{"4", "n", permission.No, "No, and tell the model why"})
}

// key handles one key press at time now; it returns the answer once there is one.
func (d *dialog) key(k string, text string, now time.Time) (permission.Answer, bool) {
	if d.reason != nil {
		switch k {
		case "enter":
			r := strings.TrimSpace(*d.reason)
			if r == "" {
				r = "the user said no"
			}
			return permission.Answer{Choice: permission.No, Reason: r}, true
		case "esc":
			d.reason = nil
		case "backspace":
			if rs := []rune(*d.reason); len(rs) > 0 {
				*d.reason = string(rs[:len(rs)-1])
			}
		case "space":
			*d.reason += " "
		default:
			if text != "" {
				*d.reason += text
			}
		}
		return permission.Answer{}, false
	}
	cs := d.choices()
	d.sel = min(max(d.sel, 0), len(cs)-1)
	pick := -1
	switch k {
	case "up", "k":
		d.sel = (d.sel + len(cs) - 1) % len(cs)
		d.hint = ""
		return permission.Answer{}, false
	case "down", "j":
		d.sel = (d.sel + 1) % len(cs)
		d.hint = ""
		return permission.Answer{}, false
	case "enter":
		if now.Sub(d.opened) < enterGrace {
			d.hint = "the dialog just opened: press Enter again to choose the highlighted answer"
			return permission.Answer{}, false
		}
		pick = d.sel
	default:
		for i, c := range cs {
			if k == c.digit || k == c.letter {
				pick = i
			}
		}
	}
	if pick < 0 {
		keys := "1 (yes) or 4 (no)"
		if len(cs) > 2 {
			keys = "1, 2, 3 or 4"
		}
		d.hint = fmt.Sprintf("%q is not an answer: press %s, or choose with ↑/↓ and Enter; Esc interrupts the turn", k, keys)
		return permission.Answer{}, false
	}
	d.sel = pick
	if cs[pick].choice == permission.No {
		s := ""
		d.reason = &s
		d.hint = ""
		return permission.Answer{}, false
	}
	return permission.Answer{Choice: cs[pick].choice}, true
}

// view draws the dialog; the diff gets what height leaves (the choices always show).
func (d *dialog) view(t *theme, width, height int) string {
	inner := max(width-4, 20)
	var b []string
	b = append(b, t.warn.Render(d.p.Call.Name+" wants to:"))
	for _, l := range strings.Split(ansi.Wrap(d.p.Summary, inner, ""), "\n") {
		b = append(b, "  "+t.bold.Render(l))
	}
	if d.p.Reach != "" {
		for _, l := range strings.Split(ansi.Wrap("reach: "+d.p.Reach, inner, ""), "\n") {
			b = append(b, t.dim.Render(l))
		}
	}
	if len(d.diff) > 0 {
		b = append(b, renderDiff(d.diff, t, inner, max(3, min(16, height-18)))...)
	}
	b = append(b, "")
	if d.reason != nil {
		b = append(b, "No. Reason for the model (Enter sends, empty says just no; Esc goes back):")
		b = append(b, "> "+*d.reason+"█")
	} else {
		for i, c := range d.choices() {
			label := c.digit + ". " + c.label
			if i == d.sel {
				for j, l := range strings.Split(ansi.Wrap(label, inner-2, ""), "\n") {
					mark := "❯ "
					if j > 0 {
						mark = "  "
					}
					b = append(b, mark+t.selected.Render(l))
				}
				continue
			}
			b = append(b, "  "+label)
		}
		b = append(b, t.dim.Render("↑/↓ choose · Enter confirms · the digit answers at once · Esc interrupts"))
	}
	if d.hint != "" {
		b = append(b, t.warn.Render(d.hint))
	}
	var lines []string
	for _, l := range b { // wrapped, not cut: the rule and the file must show whole
		lines = append(lines, strings.Split(ansi.Wrap(l, inner, ""), "\n")...)
	}
	return t.dialog.Width(width).Render(strings.Join(lines, "\n"))
}
