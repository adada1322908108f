package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// markdown renders Markdown for the terminal: goldmark parses it (CommonMark with GitHub's
// tables, strikethrough and task lists) and the blocks are drawn with the theme's styles,
// word-wrapped to width.
type markdown struct {
	md goldmark.Markdown
	t  *theme
}

func newMarkdown(t *theme) *markdown {
	return &markdown{md: goldmark.New(goldmark.WithExtensions(extension.GFM)), t: t}
}

// render returns src drawn for a terminal width columns wide, without a trailing newline.
func (m *markdown) render(src string, width int) string {
	width = max(width, 20)
	source := []byte(src)
	doc := m.md.Parser().Parse(text.NewReader(source))
	r := &mdRender{src: source, t: m.t}
	lines := r.blocks(doc, width)
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

type mdRender struct {
	src []byte
	t   *theme
}

// blocks renders the block children of n, separated by blank lines.
func (r *mdRender) blocks(n ast.Node, width int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b := r.block(c, width)
		if len(b) == 0 {
			continue
		}
		if len(out) > 0 && !(isTight(n)) {
			out = append(out, "")
		}
		out = append(out, b...)
	}
	return out
}

func isTight(n ast.Node) bool {
	if li, ok := n.(*ast.ListItem); ok {
		if l, ok := li.Parent().(*ast.List); ok {
			return l.IsTight
		}
	}
	if l, ok := n.(*ast.List); ok {
		return l.IsTight
	}
	return false
}

func (r *mdRender) block(n ast.Node, width int) []string {
	t := r.t
	switch n := n.(type) {
	case *ast.Heading:
		prefix := strings.Repeat("#", n.Level) + " "
		return wrapLines(t.heading.Render(prefix+ansi.Strip(r.inlines(n))), width)
	case *ast.Paragraph, *ast.TextBlock:
		return wrapLines(r.inlines(n), width)
	case *ast.ThematicBreak:
		return []string{t.rule.Render(strings.Repeat("─", min(width, 40)))}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		lang := ""
		if f, ok := n.(*ast.FencedCodeBlock); ok {
			lang = string(f.Language(r.src))
		}
		return r.code(n, lang, width)
	case *ast.Blockquote:
		var out []string
		for _, l := range r.blocks(n, width-2) {
			out = append(out, t.quote.Render("│ ")+t.quote.Render(ansi.Strip(l)))
		}
		return out
	case *ast.List:
		var out []string
		i := n.Start
		if i == 0 {
			i = 1
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			bullet := "• "
			if n.IsOrdered() {
				bullet = fmt.Sprintf("%d. ", i)
				i++
			}
			pad := strings.Repeat(" ", ansi.StringWidth(bullet))
			if len(out) > 0 && !n.IsTight {
				out = append(out, "")
			}
			for j, l := range r.blocks(c, width-len(pad)) {
				if j == 0 {
					out = append(out, bullet+l)
				} else {
					out = append(out, pad+l)
				}
			}
		}
		return out
	case *east.Table:
		return r.table(n, width)
	case *ast.HTMLBlock:
		var b strings.Builder
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			b.Write(seg.Value(r.src))
		}
		return wrapLines(strings.TrimRight(b.String(), "\n"), width)
	}
	if n.HasChildren() {
		return r.blocks(n, width)
	}
	return nil
}

func (r *mdRender) code(n ast.Node, lang string, width int) []string {
	sp := specFor(lang)
	lines := n.Lines()
	out := make([]string, 0, lines.Len()+1)
	if lang != "" {
		out = append(out, r.t.dim.Render("  "+lang))
	}
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		l := strings.TrimRight(string(seg.Value(r.src)), "\r\n")
		l = strings.ReplaceAll(l, "\t", "    ")
		l = highlight(l, sp, r.t)
		for _, w := range strings.Split(ansi.Hardwrap(l, max(width-2, 10), true), "\n") {
			out = append(out, "  "+w)
		}
	}
	return out
}

func (r *mdRender) table(tb *east.Table, width int) []string {
	var rows [][]string
	for row := tb.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.inlines(c))
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	var out []string
	for ri, row := range rows {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString(" │ ")
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-ansi.StringWidth(c)))
		}
		line := b.String()
		if ri == 0 {
			line = r.t.bold.Render(ansi.Strip(line))
		}
		out = append(out, ansi.Truncate(line, width, "…"))
		if ri == 0 {
			var sep []string
			for _, w := range widths {
				sep = append(sep, strings.Repeat("─", w))
			}
			out = append(out, r.t.rule.Render(ansi.Truncate(strings.Join(sep, "─┼─"), width, "")))
		}
	}
	return out
}

// inlines renders the inline children of n as one styled string (soft breaks become
// spaces, hard breaks newlines).
func (r *mdRender) inlines(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(&b, c)
	}
	return b.String()
}

func (r *mdRender) inline(b *strings.Builder, n ast.Node) {
	t := r.t
	switch n := n.(type) {
	case *ast.Text:
		b.Write(n.Segment.Value(r.src))
		switch {
		case n.HardLineBreak():
			b.WriteByte('\n')
		case n.SoftLineBreak():
			b.WriteByte(' ')
		}
	case *ast.String:
		b.Write(n.Value)
	case *ast.CodeSpan:
		var s strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if tx, ok := c.(*ast.Text); ok {
				s.Write(tx.Segment.Value(r.src))
			}
		}
		if t.color {
			b.WriteString(t.code.Render(s.String()))
		} else { // without colour, the backticks tell code from prose
			b.WriteString("`" + s.String() + "`")
		}
	case *ast.Emphasis:
		st := t.italic
		if n.Level >= 2 {
			st = t.bold
		}
		b.WriteString(st.Render(ansi.Strip(r.inlines(n))))
	case *east.Strikethrough:
		b.WriteString(t.strike.Render(ansi.Strip(r.inlines(n))))
	case *ast.Link:
		label := ansi.Strip(r.inlines(n))
		dest := string(n.Destination)
		if label == "" || label == dest {
			b.WriteString(t.link.Render(dest))
		} else {
			b.WriteString(t.link.Render(label) + t.dim.Render(" ("+dest+")"))
		}
	case *ast.AutoLink:
		b.WriteString(t.link.Render(string(n.URL(r.src))))
	case *ast.Image:
		b.WriteString(t.dim.Render("[image: " + ansi.Strip(r.inlines(n)) + "]"))
	case *east.TaskCheckBox:
		if n.IsChecked {
			b.WriteString("[x] ")
		} else {
			b.WriteString("[ ] ")
		}
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			r.inline(b, c)
		}
	}
}

// wrapLines word-wraps s (styled) to width and splits it into lines.
func wrapLines(s string, width int) []string {
	return strings.Split(ansi.Wrap(s, max(width, 10), ""), "\n")
}
