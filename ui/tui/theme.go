package tui

import (
	"charm.land/lipgloss/v2"
)

// theme holds the styles of the screen for one background (light or dark); with
// NO_COLOR it keeps only bold, italic, underline and reverse.
type theme struct {
	dark, color bool

	heading, bold, italic, strike, code, link, quote, rule, dim lipgloss.Style
	keyword, str, comment, number                               lipgloss.Style
	added, removed, hunk                                        lipgloss.Style
	ok, fail, running, accent, warn, dialog, selected           lipgloss.Style
}

func newTheme(dark, color bool) *theme {
	ld := lipgloss.LightDark(dark)
	fg := func(light, darkC string) lipgloss.Style {
		s := lipgloss.NewStyle()
		if color {
			s = s.Foreground(ld(lipgloss.Color(light), lipgloss.Color(darkC)))
		}
		return s
	}
	t := &theme{dark: dark, color: color}
	t.heading = fg("25", "75").Bold(true)
	t.bold = lipgloss.NewStyle().Bold(true)
	t.italic = lipgloss.NewStyle().Italic(true)
	t.strike = lipgloss.NewStyle().Strikethrough(true)
	t.code = fg("124", "216")
	t.link = fg("25", "111").Underline(true)
	t.quote = fg("243", "246").Italic(true)
	t.rule = fg("250", "238")
	t.dim = fg("244", "244")
	t.keyword = fg("90", "176").Bold(true)
	t.str = fg("28", "114")
	t.comment = fg("244", "244").Italic(true)
	t.number = fg("130", "215")
	t.added = fg("28", "114")
	t.removed = fg("124", "210")
	t.hunk = fg("31", "80")
	t.ok = fg("28", "114")
	t.fail = fg("124", "210").Bold(true)
	t.running = fg("130", "215")
	t.accent = fg("25", "75").Bold(true)
	t.warn = fg("130", "215").Bold(true)
	t.dialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	if color {
		t.dialog = t.dialog.BorderForeground(ld(lipgloss.Color("130"), lipgloss.Color("215")))
		t.added = t.added.Background(ld(lipgloss.Color("194"), lipgloss.Color("22")))
		t.removed = t.removed.Background(ld(lipgloss.Color("224"), lipgloss.Color("52")))
	}
	t.selected = lipgloss.NewStyle().Reverse(true)
	return t
}
