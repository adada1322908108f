package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/tool"
)

// shownDiff is the diff a call would make, as drawn (without colour), one string a line.
func shownDiff(t *testing.T, name string, in map[string]any) []string {
	t.Helper()
	raw, _ := json.Marshal(in)
	c := tool.Call{ID: "t1", Name: name, Input: raw}
	var out []string
	for _, l := range renderDiff(callDiff(&c), newTheme(true, false), 76, 100) {
		out = append(out, strings.TrimRight(ansi.Strip(l), " "))
	}
	return out
}

func numberedFile(t *testing.T, n int, eol string) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d%s", i, eol)
	}
	p := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Edit, MultiEdit and Write previews are numbered as the file's lines (removed and
// unchanged lines as the file is now, added ones as it will be), with three lines of
// context around each change and ⋯ where lines are left out.
func TestDiffNumberedAsTheFile(t *testing.T) {
	p := numberedFile(t, 20, "\n")
	cases := []struct {
		name string
		tool string
		in   map[string]any
		want []string
	}{
		{"edit in the middle", "Edit", map[string]any{"file_path": p, "old_string": "line 10\n", "new_string": "LINE TEN\nand more\n"},
			[]string{"    ⋯", "     7   line 7", "     8   line 8", "     9   line 9", "    10 - line 10", "    10 + LINE TEN",
				"    11 + and more", "    11   line 11", "    12   line 12", "    13   line 13", "    ⋯"}},
		{"edit at the top", "Edit", map[string]any{"file_path": p, "old_string": "line 1\n", "new_string": ""},
			[]string{"    1 - line 1", "    2   line 2", "    3   line 3", "    4   line 4", "    ⋯"}},
		{"edit at the end", "Edit", map[string]any{"file_path": p, "old_string": "line 20", "new_string": "line twenty"},
			[]string{"    ⋯", "    17   line 17", "    18   line 18", "    19   line 19", "    20 - line 20", "    20 + line twenty"}},
		{"replace_all", "Edit", map[string]any{"file_path": p, "old_string": "line 2", "new_string": "L2", "replace_all": true},
			[]string{"     1   line 1", "     2 - line 2", "     2 + L2", "     3   line 3", "     4   line 4", "     5   line 5",
				"    ⋯", "    17   line 17", "    18   line 18", "    19   line 19", "    20 - line 20", "    20 + L20"}},
		{"multiedit", "MultiEdit", map[string]any{"file_path": p, "edits": []map[string]any{
			{"old_string": "line 5\n", "new_string": "five\n"}, {"old_string": "line 15", "new_string": "fifteen"}}},
			[]string{"    ⋯", "     2   line 2", "     3   line 3", "     4   line 4", "     5 - line 5", "     5 + five",
				"     6   line 6", "     7   line 7", "     8   line 8", "    ⋯", "    12   line 12", "    13   line 13",
				"    14   line 14", "    15 - line 15", "    15 + fifteen", "    16   line 16", "    17   line 17", "    18   line 18", "    ⋯"}},
		{"write over the file", "Write", map[string]any{"file_path": p, "content": strings.Replace(mustRead(t, p), "line 3\n", "", 1)},
			[]string{"    1   line 1", "    2   line 2", "    3 - line 3", "    4   line 4", "    5   line 5", "    6   line 6", "    ⋯"}},
		{"write a new file", "Write", map[string]any{"file_path": filepath.Join(filepath.Dir(p), "new.txt"), "content": "a\nb\n"},
			[]string{"    1 + a", "    2 + b"}},
		// The edit will fail (old_string is not in the file): the strings alone, unnumbered.
		{"not found", "Edit", map[string]any{"file_path": p, "old_string": "nowhere", "new_string": "x"},
			[]string{"    - nowhere", "    + x"}},
		{"ambiguous", "Edit", map[string]any{"file_path": p, "old_string": "line 1", "new_string": "x"},
			[]string{"    - line 1", "    + x"}},
	}
	for _, c := range cases {
		got := shownDiff(t, c.tool, c.in)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// A file with CRLF line ends is edited with \n strings, as the Edit tool allows; the
// \r does not show.
func TestDiffCRLFFile(t *testing.T) {
	p := numberedFile(t, 5, "\r\n")
	got := shownDiff(t, "Edit", map[string]any{"file_path": p, "old_string": "line 3\nline 4", "new_string": "three\nfour"})
	want := []string{"    1   line 1", "    2   line 2", "    3 - line 3", "    4 - line 4", "    3 + three", "    4 + four", "    5   line 5"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The tool block and the permission dialog both show the numbered diff.
func TestToolBlockAndDialogShowNumbers(t *testing.T) {
	p := numberedFile(t, 30, "\n")
	in, _ := json.Marshal(map[string]string{"file_path": p, "old_string": "line 25", "new_string": "line 25 changed"})
	call := tool.Call{ID: "t1", Name: "Edit", Input: in}
	b := newToolBlock(&call, callDiff(&call), time.Now(), "")
	b.done = true
	block := ansi.Strip(b.render(newTheme(true, false), 80, "•", false))
	m, _, _ := testModel(t, 80)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 40})
	m.Update(approveMsg{p: permission.Prompt{Call: call, Summary: "Edit " + p}, diff: callDiff(&call), reply: make(chan permission.Answer, 1)})
	dialog := ansi.Strip(m.render())
	for _, s := range []string{block, dialog} {
		for _, want := range []string{"22   line 22", "25 - line 25", "25 + line 25 changed", "28   line 28"} {
			if !strings.Contains(s, want) {
				t.Errorf("no %q in:\n%s", want, s)
			}
		}
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
