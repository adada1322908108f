package eval

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// checkBalanced fails unless every element the page opens is closed in order, the part of
// well-formedness a template edit most easily breaks.
func checkBalanced(t *testing.T, page string) {
	t.Helper()
	void := map[string]bool{"meta": true, "br": true, "link": true, "img": true, "hr": true, "input": true}
	var stack []string
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatalf("tokenizing: %v", z.Err())
			}
			if len(stack) > 0 {
				t.Fatalf("unclosed elements at the end: %v", stack)
			}
			return
		case html.StartTagToken:
			name, _ := z.TagName()
			if !void[string(name)] {
				stack = append(stack, string(name))
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(stack) == 0 || stack[len(stack)-1] != string(name) {
				t.Fatalf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		}
	}
}

func TestWriteHTML(t *testing.T) {
	r := sampleReport()
	r.Tasks = append(r.Tasks, taskReport("<script>", KindFix,
		RunResult{Failures: []string{`wrote "<script>alert(1)</script>" to main.go`}, ToolCalls: 2, Turns: 2, ContextTokens: 300}))
	r.Overall = Summarize(append(append([]RunResult{}, r.Tasks[0].Runs...), r.Tasks[3].Runs...))

	base := sampleReport()
	base.Model = "baseline-model"
	base.Tasks[0] = taskReport("fix-off-by-one", KindFix,
		RunResult{Success: true, Claimed: true, ToolCalls: 10, Turns: 4, ContextTokens: 12000})
	cmp := Compare(base, r)

	for _, tc := range []struct {
		name string
		cmp  *Comparison
	}{{"alone", nil}, {"with baseline", &cmp}} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteHTML(&b, r, tc.cmp); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			checkBalanced(t, page)
			if n := strings.Count(page, "<svg"); n != len(reportMetrics) {
				t.Errorf("%d <svg> charts, want %d", n, len(reportMetrics))
			}
			if strings.Contains(strings.ToLower(page), "<script") {
				t.Errorf("page contains a <script> element; the task name was not escaped")
			}
			if !strings.Contains(page, "&lt;script&gt;") {
				t.Errorf("escaped task name missing")
			}
			// Self-contained: the only URLs are the SVG namespace and the file:// links.
			if n, ns := strings.Count(page, "http"), strings.Count(page, `xmlns="http://www.w3.org/2000/svg"`); n != ns {
				t.Errorf("page has %d http URLs besides the SVG namespace", n-ns)
			}
			if strings.Contains(page, "src=") || strings.Contains(page, "<link") {
				t.Errorf("page loads an external asset")
			}
			for _, want := range []string{
				"claude-test", "eval/tasks", "2026-11-30 01:00", "1m35s",
				"test command failed: FAIL TestSum",
				`href="file:///`, `fix-off-by-one-2.jsonl"`,
				"python3 not found",
			} {
				if !strings.Contains(page, want) {
					t.Errorf("page lacks %q", want)
				}
			}
			hasCmp := strings.Contains(page, "Against baseline")
			if hasCmp != (tc.cmp != nil) {
				t.Errorf("comparison shown = %v, want %v", hasCmp, tc.cmp != nil)
			}
			if tc.cmp != nil {
				if !strings.Contains(page, `<tr class="regression"><td>fix-off-by-one</td><td>success rate</td>`) {
					t.Errorf("success regression of fix-off-by-one not highlighted:\n%s", page)
				}
				if !strings.Contains(page, "&lt;script&gt;: in this run, not in the baseline") {
					t.Errorf("missing task not listed")
				}
			}
		})
	}
}

func TestBuildChartScale(t *testing.T) {
	tasks := []TaskReport{
		{Task: "a", Metrics: Metrics{Runs: 1, AvgTurns: 2, SuccessRate: 0.5}},
		{Task: "b", Metrics: Metrics{Runs: 1, AvgTurns: 8, SuccessRate: 0.25}},
		{Task: "c", Skipped: "no python"},
	}
	turns := buildChart(reportMetrics[3], tasks)
	if turns.Bars[1].W != chartBarWidth || turns.Bars[0].W != chartBarWidth/4 {
		t.Errorf("turn bars %v, %v; want the largest full width and the other a quarter", turns.Bars[0].W, turns.Bars[1].W)
	}
	if turns.Bars[2].W != 0 || turns.Bars[2].Value != "skipped" {
		t.Errorf("skipped bar = %+v", turns.Bars[2])
	}
	success := buildChart(reportMetrics[0], tasks)
	if success.Bars[0].W != chartBarWidth/2 || success.Bars[0].Value != "50%" {
		t.Errorf("rate bar = %+v, want half width (rates are drawn against 100%%)", success.Bars[0])
	}
	zero := buildChart(reportMetrics[2], tasks)
	for _, b := range zero.Bars {
		if b.W != 0 {
			t.Errorf("all-zero metric drew a bar: %+v", b)
		}
	}
}

// TestWriteHTMLEscapes feeds every character that means something in HTML or in a URL
// through the places the page puts text, attributes and links.
func TestWriteHTMLEscapes(t *testing.T) {
	const nasty = "<b x='1'>\"a\"&+\x00"
	r := sampleReport()
	r.Model = nasty
	r.Tasks = append(r.Tasks, taskReport(nasty, KindFix,
		RunResult{Failures: []string{nasty}, Invalid: []string{nasty}, OutOfBound: []string{nasty},
			Reason: nasty, Transcript: "/tmp/a b/ü'&+\"<x>.jsonl"}))
	base := sampleReport()
	base.Model = nasty
	cmp := Compare(base, r)
	var b bytes.Buffer
	if err := WriteHTML(&b, r, &cmp); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkBalanced(t, page)
	const escaped = "&lt;b x=&#39;1&#39;&gt;&#34;a&#34;&amp;&#43;\uFFFD"
	for _, want := range []string{
		"<title>ouro eval: " + escaped + "</title>",
		"<h2>Against baseline " + escaped,
		"<title>" + escaped + "</title>",
		"<td>" + escaped + "</td>",
		`<li class="sub">invalid: ` + escaped + "</li>",
		`<li class="sub">out of bounds: ` + escaped + "</li>",
		`<a href="file:///tmp/a%20b/%C3%BC%27&amp;&#43;%22%3Cx%3E.jsonl">/tmp/a b/ü&#39;&amp;&#43;&#34;&lt;x&gt;.jsonl</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<b ") || strings.Contains(page, "\x00") {
		t.Errorf("raw markup or NUL reached the page")
	}
}

func TestEscURL(t *testing.T) {
	for in, want := range map[string]string{
		"file:///a(b) c":        "file:///a%28b%29%20c",
		"file:///x%20y?q=1&r=+": "file:///x%20y?q=1&amp;r=&#43;",
		"file:///é'\"":          "file:///%c3%a9%27%22",
	} {
		if got := escURL(in); got != want {
			t.Errorf("escURL(%q) = %q, want %q", in, got, want)
		}
	}
}
