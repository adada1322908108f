package eval

import (
	"fmt"
	"strconv"
	"strings"
)

// The report page is written by plain Go rather than html/template on purpose. Executing
// any text/template or html/template makes the linker keep every exported method of every
// type in the program (templates call methods by name, through reflection), and the model
// SDKs have thousands: ouro's binary doubled to 75 MB and every run paid for it in memory
// (see cmd/ouro's TestBinaryMemory). So every value placed on the page goes through esc
// (text and quoted attributes) or escURL (href), which escape as html/template did.

// htmlEscapes are the replacements html/template makes in text and in quoted attribute
// values; a NUL byte becomes U+FFFD.
var htmlEscapes = strings.NewReplacer(
	"\x00", "\uFFFD",
	`"`, "&#34;",
	"&", "&amp;",
	"'", "&#39;",
	"+", "&#43;",
	"<", "&lt;",
	">", "&gt;",
)

// esc makes s safe as HTML text or as a double-quoted attribute value.
func esc(s string) string { return htmlEscapes.Replace(s) }

// escURL makes an already built URL safe in an href: bytes a URL may not carry (space,
// quotes, parentheses, non-ASCII...) are percent-encoded, an existing %XX is kept, and
// the result is escaped for the attribute.
func escURL(u string) string {
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~!#$&*+,/:;=?@[]%", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return esc(b.String())
}

// num formats a coordinate the way the page always has: one decimal.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// yesNo is a flag as the runs table shows it.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// htmlHead is the page up to its header line; "td li" keeps the lines of test output.
const htmlHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ouro eval: %s</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
.meta { color: #666; }
.big { display: flex; flex-wrap: wrap; gap: 1em; margin: 1.5em 0; }
.big div { border: 1px solid #ddd; border-radius: 6px; padding: 0.8em 1.2em; min-width: 10em; }
.big b { display: block; font-size: 2em; }
.big span { color: #666; font-size: 0.9em; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
.chart h3 { font-size: 1em; margin: 0.5em 0; }
svg text { font-size: 12px; dominant-baseline: middle; }
svg rect { fill: #4a7fb5; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
td.num { text-align: right; }
.no, .regression td { background: #fde2e1; }
.yes, .improvement td { background: #e3f4e1; }
ul { margin: 0; padding-left: 1.2em; }
td li { white-space: pre-wrap; }
.sub { color: #666; }
</style>
</head>
<body>
<h1>ouro eval: %s</h1>
`

// renderHTML lays out the page: header, big numbers, the comparison, charts, runs.
func renderHTML(v htmlView) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p(htmlHead, esc(v.Model), esc(v.Model))
	p(`<p class="meta">task set %s`, esc(v.TaskSet))
	if v.Date != "" {
		p(" · %s", esc(v.Date))
	}
	p(" · took %s", esc(v.Duration))
	if v.Version != "" {
		p(" · ouro %s", esc(v.Version))
	}
	p("</p>\n\n<div class=\"big\">")
	for _, g := range v.Big {
		p("\n<div><b>%s</b>%s<br><span>%s</span></div>", esc(g.Value), esc(g.Label), esc(g.Detail))
	}
	p("\n</div>\n\n")
	if v.Cmp != nil {
		renderComparison(&b, v.Cmp)
	}
	p("\n\n<h2>Per task</h2>\n<div class=\"charts\">")
	for _, c := range v.Charts {
		renderChart(&b, c)
	}
	p("\n</div>\n\n<h2>Runs</h2>\n<table>\n<tr><th>task</th><th>run</th><th>status</th><th>success</th><th>claimed</th><th>false completion</th><th>calls / invalid / out of bounds</th><th>turns</th><th>tokens</th><th>failures</th><th>transcript</th></tr>")
	for _, r := range v.Runs {
		renderRun(&b, r)
	}
	p("\n</table>\n</body>\n</html>\n")
	return b.String()
}

func renderComparison(b *strings.Builder, c *htmlComparison) {
	fmt.Fprintf(b, "\n<h2>Against baseline %s</h2>\n<p>", esc(c.Baseline))
	if c.Regressions != 0 {
		fmt.Fprintf(b, "%d regression(s), highlighted in red.", c.Regressions)
	} else {
		b.WriteString("No regressions.")
	}
	b.WriteString("</p>\n<table>\n<tr><th>task</th><th>metric</th><th>baseline</th><th>current</th><th>note</th></tr>")
	for _, r := range c.Rows {
		b.WriteString("\n<tr")
		if r.Class != "" {
			fmt.Fprintf(b, ` class="%s"`, esc(r.Class))
		}
		fmt.Fprintf(b, `><td>%s</td><td>%s</td><td class="num">%s</td><td class="num">%s</td><td>%s</td></tr>`,
			esc(r.Task), esc(r.Metric), esc(r.Base), esc(r.Current), esc(r.Note))
	}
	b.WriteString("\n</table>\n")
	if len(c.Missing) > 0 {
		b.WriteString("<p>Not compared:</p><ul>")
		for _, m := range c.Missing {
			fmt.Fprintf(b, "<li>%s</li>", esc(m))
		}
		b.WriteString("</ul>")
	}
	b.WriteString("\n")
}

func renderChart(b *strings.Builder, c htmlChart) {
	title := esc(c.Title)
	fmt.Fprintf(b, "\n<div class=\"chart\">\n<h3>%s</h3>\n", title)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s per task">`,
		c.Width, c.Height, c.Width, c.Height, title)
	for _, bar := range c.Bars {
		fmt.Fprintf(b, "\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\"><title>%s</title>%s</text>", c.LabelX, bar.TextY, esc(bar.FullLabel), esc(bar.Label))
		fmt.Fprintf(b, "\n<rect x=\"%d\" y=\"%d\" width=\"%s\" height=\"%d\"></rect>", c.BarX, bar.Y, num(bar.W), c.BarH)
		fmt.Fprintf(b, "\n<text x=\"%s\" y=\"%d\">%s</text>", num(bar.ValueX), bar.TextY, esc(bar.Value))
	}
	b.WriteString("\n</svg>\n</div>")
}

func renderRun(b *strings.Builder, r htmlRun) {
	fmt.Fprintf(b, "\n<tr>\n<td>%s</td><td class=\"num\">%d</td><td>%s</td>", esc(r.Task), r.Run, esc(r.Status))
	if r.Skipped {
		b.WriteString("<td></td><td></td><td></td>")
	} else {
		falseCls := ""
		if r.FalseCompletion {
			falseCls = ` class="no"`
		}
		fmt.Fprintf(b, `<td class="%s">%s</td><td>%s</td><td%s>%s</td>`,
			yesNo(r.Success), yesNo(r.Success), yesNo(r.Claimed), falseCls, yesNo(r.FalseCompletion))
	}
	fmt.Fprintf(b, "\n<td class=\"num\">%d / %d / %d</td><td class=\"num\">%d</td><td class=\"num\">%s</td>\n<td>",
		r.Calls, r.Invalid, r.OutOfBounds, r.Turns, esc(r.Tokens))
	if len(r.Failures)+len(r.InvalidLines)+len(r.OutOfBoundLines) > 0 {
		b.WriteString("<ul>")
		for _, f := range r.Failures {
			fmt.Fprintf(b, "<li>%s</li>", esc(f))
		}
		for _, f := range r.InvalidLines {
			fmt.Fprintf(b, `<li class="sub">invalid: %s</li>`, esc(f))
		}
		for _, f := range r.OutOfBoundLines {
			fmt.Fprintf(b, `<li class="sub">out of bounds: %s</li>`, esc(f))
		}
		b.WriteString("\n</ul>")
	}
	b.WriteString("</td>\n<td>")
	if r.TranscriptURL != "" {
		fmt.Fprintf(b, `<a href="%s">%s</a>`, escURL(r.TranscriptURL), esc(r.Transcript))
	}
	b.WriteString("</td>\n</tr>")
}
