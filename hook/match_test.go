package hook

import "testing"

func TestMatcherForms(t *testing.T) {
	cases := []struct {
		pattern, subject string
		want             bool
	}{
		{"", "Bash", true},
		{"*", "anything", true},
		{"  ", "Bash", true},
		{"Bash", "Bash", true},
		{"Bash", "BashOutput", false}, // a plain name is exact, not a prefix
		{"Bash", "bash", false},
		{"Bash|Edit", "Edit", true},
		{"Bash|Edit", "Write", false},
		{"Edit | Write", "Write", true},
		{"Edit,Write", "Write", true},
		{"mcp__srv__do-it", "mcp__srv__do-it", true},
		{"startup|resume", "resume", true},
		{"manual", "auto", false},
		{"Notebook.*", "NotebookEdit", true},
		{"Edit.*", "MultiEdit", true}, // a regex is unanchored
		{"^Edit$", "MultiEdit", false},
		{"mcp__memory__.*", "mcp__memory__create", true},
		{"mcp__memory__.*", "mcp__github__create", false},
		{"(Write|Edit)$", "Edit", true},
	}
	for _, c := range cases {
		m, err := compileMatcher(c.pattern)
		if err != nil {
			t.Fatalf("compileMatcher(%q): %v", c.pattern, err)
		}
		if got := m.matches(c.subject); got != c.want {
			t.Errorf("matcher %q on %q = %v, want %v", c.pattern, c.subject, got, c.want)
		}
	}
}

func TestMatcherInvalidRegex(t *testing.T) {
	for _, p := range []string{"Bash(", "[a-", "*Edit"} {
		if _, err := compileMatcher(p); err == nil {
			t.Errorf("compileMatcher(%q) accepted an invalid pattern", p)
		}
	}
}
