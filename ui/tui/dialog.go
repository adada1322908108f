package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ouroagent/ouro/permission"
)

// dialog asks about one call the permission policy could not decide. Only its keys
// answer: 1/y once, 2/s this session, 3/a always (both only when a rule can say it), 4/n
// no, which then takes a reason for the model (Enter sends it; Esc goes back). Any other
// key answers nothing and says which keys do.
type dialog struct {
	p      permission.Prompt
	diff   []diffLine
	reply  chan permission.Answer
	saveTo string  // the file an "always" writes (the project's settings.local.json)
	reason *string // non-nil while the reason for a "no" is typed
	hint   string
}

// key handles one key press; it returns the answer once there is one.
func (d *dialog) key(k string, text string) (permission.Answer, bool) {
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
	canRemember := d.p.SuggestedRule != ""
	switch k {
	case "1", "y":
		return permission.Answer{Choice: permission.Once}, true
	case "2", "s":
		if canRemember {
			return permission.Answer{Choice: permission.Session}, true
		}
	case "3", "a":
		if canRemember {
			return permission.Answer{Choice: permission.Always}, true
		}
	case "4", "n":
		s := ""
		d.reason = &s
		d.hint = ""
		return permission.Answer{}, false
	}
	keys := "1 (yes) or 4 (no)"
	if canRemember {
		keys = "1, 2, 3 or 4"
	}
	d.hint = fmt.Sprintf("%q is not an answer: press %s; Esc interrupts the turn", k, keys)
	return permission.Answer{}, false
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
		b = append(b, renderDiff(d.diff, t, inner, max(3, min(16, height-17)))...)
	}
	b = append(b, "")
	if d.reason != nil {
		b = append(b, "No. Reason for the model (Enter sends, empty says just no; Esc goes back):")
		b = append(b, "> "+*d.reason+"█")
	} else {
		b = append(b, "1. Yes, once")
		if d.p.SuggestedRule != "" {
			b = append(b, "2. Yes, for this session: allow "+d.p.SuggestedRule)
			b = append(b, "3. Always: save "+d.p.SuggestedRule+" to "+d.saveTo)
		}
		b = append(b, "4. No, and tell the model why")
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
