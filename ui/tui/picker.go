package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// pickMsg asks the screen to offer a choice (/model alone); the index chosen, or -1 for
// none, goes to reply.
type pickMsg struct {
	title   string
	options []string
	reply   chan int
}

// picker offers options: Up/Down move, Enter takes the one marked, a digit takes that
// one at once, Esc cancels.
type picker struct {
	title   string
	options []string
	sel     int
	reply   chan int
}

// key handles one key press; done is true once the picker has its answer (-1: none).
func (p *picker) key(k string) (choice int, done bool) {
	switch k {
	case "up", "k":
		p.sel = (p.sel + len(p.options) - 1) % len(p.options)
	case "down", "j", "tab":
		p.sel = (p.sel + 1) % len(p.options)
	case "enter":
		return p.sel, true
	case "esc", "ctrl+c":
		return -1, true
	default:
		if n, err := strconv.Atoi(k); err == nil && n >= 1 && n <= min(len(p.options), 9) {
			return n - 1, true
		}
	}
	return 0, false
}

// view draws the choices, as many as the height leaves around the one marked.
func (p *picker) view(t *theme, width, height int) string {
	inner := max(width-4, 20)
	lines := strings.Split(ansi.Wrap(p.title, inner, ""), "\n")
	room := max(height-10, 3)
	from := min(max(p.sel-room/2, 0), max(len(p.options)-room, 0))
	for i := from; i < len(p.options) && i < from+room; i++ {
		num := "  "
		if i < 9 {
			num = fmt.Sprintf("%d.", i+1)
		}
		l := ansi.Truncate(fmt.Sprintf("%s %s", num, p.options[i]), inner-2, "…")
		if i == p.sel {
			l = t.selected.Render("› " + l)
		} else {
			l = "  " + l
		}
		lines = append(lines, l)
	}
	lines = append(lines, t.dim.Render("↑/↓ and Enter, or a digit, choose · Esc cancels"))
	return t.dialog.Width(width).Render(strings.Join(lines, "\n"))
}
