package memory

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseRulePaths(t *testing.T) {
	cases := []struct {
		name, text string
		globs      []string
		skip       bool
		warns      int
	}{
		{"none", "# always\nbody", nil, false, 0},
		{"list", "---\npaths:\n  - \"src/**/*.ts\"\n  - tests/*.ts\n---\nbody", []string{"src/**/*.ts", "tests/*.ts"}, false, 0},
		{"unquoted star (not YAML)", "---\npaths:\n  - **/*.go\n---\nbody", []string{"**/*.go"}, false, 0},
		{"comma string", "---\npaths: **/*.go,**/go.mod, ./x/*.{ts,tsx}\n---\nbody", []string{"**/*.go", "**/go.mod", "x/*.{ts,tsx}"}, false, 0},
		{"globs key", "---\nglobs: \"*.py\"\n---\nbody", []string{"*.py"}, false, 0},
		{"one invalid of two", "---\npaths:\n  - \"src/[abc\"\n  - \"*.md\"\n---\nbody", []string{"*.md"}, false, 1},
		{"all invalid", "---\npaths: \"src/{a,b\"\n---\nbody", nil, true, 1},
		{"unclosed", "---\npaths: x\nbody", nil, true, 0},
		{"other keys only", "---\ndescription: x\n---\nbody", nil, false, 0},
		{"map", "---\npaths:\n  a: b\n---\nbody", nil, true, 0},
	}
	for _, c := range cases {
		globs, body, warns, skip := parseRule("r.md", c.text)
		if !slices.Equal(globs, c.globs) || (skip != "") != c.skip || len(warns) != c.warns {
			t.Errorf("%s: globs %q skip %q warns %q", c.name, globs, skip, warns)
		}
		if !c.skip && strings.TrimSpace(body) != "body" && c.name != "none" {
			t.Errorf("%s: body %q", c.name, body)
		}
	}
}

func TestRuleMatches(t *testing.T) {
	r := Rule{Base: "/p", Globs: []string{"src/**/*.ts", "*.md"}}
	for path, want := range map[string]bool{
		"/p/src/a/b.ts": true, "/p/src/b.ts": true, "/p/lib/b.ts": false,
		"/p/README.md": true, "/p/docs/x/y.md": true, "/q/src/a.ts": false, "/p/../src/a.ts": false,
	} {
		if got := r.Matches(path); got != want {
			t.Errorf("Matches(%s) = %v", path, got)
		}
	}
}

// Rules folders load recursively; rules without paths: join the text, those with are
// returned; a symlink loop, a link to /, a binary file and an invalid glob are each
// reported and cost nothing.
func TestLoadRulesFolders(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".claude", "rules", "mine.md"), "USER RULE")
	write(t, filepath.Join(repo, "CLAUDE.md"), "ROOT")
	write(t, filepath.Join(repo, ".claude", "rules", "style.md"), "STYLE RULE")
	write(t, filepath.Join(repo, ".claude", "rules", "deep", "er", "nested.md"), "NESTED RULE")
	write(t, filepath.Join(repo, ".claude", "rules", "go.md"), "---\npaths:\n  - **/*.go\n---\nGO RULE")
	write(t, filepath.Join(repo, ".claude", "rules", "bad.md"), "---\npaths: \"src/[x\"\n---\nNEVER")
	write(t, filepath.Join(repo, ".claude", "rules", "notes.txt"), "NOT MARKDOWN")
	write(t, filepath.Join(repo, ".ouro", "rules", "ouro.md"), "OURO RULE")
	write(t, filepath.Join(repo, ".claude", "rules", "bin.md"), "\x00\x01ELF")
	write(t, filepath.Join(repo, "CLAUDE.local.md"), "LOCAL")
	for name, target := range map[string]string{"loop": ".", "root": "/", "up": "../../.."} {
		if err := os.Symlink(target, filepath.Join(repo, ".claude", "rules", name)); err != nil {
			t.Fatal(err)
		}
	}
	in := Load(repo, repo, home, nil, 0) // ends: the loop is walked once
	order := []string{"USER RULE", "ROOT", "STYLE RULE", "NESTED RULE", "OURO RULE", "LOCAL"}
	pos := -1
	for _, s := range order {
		i := strings.Index(in.Text, s)
		if i < pos {
			t.Fatalf("%q missing or out of order:\n%s", s, in.Text)
		}
		pos = i
	}
	for _, s := range []string{"GO RULE", "NEVER", "NOT MARKDOWN", "ELF"} {
		if strings.Contains(in.Text, s) {
			t.Errorf("text holds %q", s)
		}
	}
	if len(in.Rules) != 1 || in.Rules[0].Text != "GO RULE" || !in.Rules[0].Matches(filepath.Join(canonical(repo), "x", "y.go")) {
		t.Fatalf("rules = %+v", in.Rules)
	}
	all := strings.Join(in.Warnings, "\n")
	for _, w := range []string{"src/[x", "bin.md skipped", "root skipped", "up skipped"} {
		if !strings.Contains(all, w) {
			t.Errorf("no warning about %q in:\n%s", w, all)
		}
	}
	if strings.Count(all, "STYLE") > 0 || len(in.Warnings) > 6 {
		t.Errorf("too many warnings:\n%s", all)
	}
}

// A project's rules folder that leads out of the project is read only when a Read of it
// is allowed.
func TestProjectRulesOutsideNeedAllow(t *testing.T) {
	home, repo, shared := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(shared, "team.md"), "TEAM RULE")
	if err := os.MkdirAll(filepath.Join(repo, ".claude", "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, filepath.Join(repo, ".claude", "rules", "shared")); err != nil {
		t.Fatal(err)
	}
	if in := Load(repo, repo, home, nil, 0); strings.Contains(in.Text, "TEAM") || len(in.Warnings) != 1 {
		t.Errorf("without allow: %q %q", in.Text, in.Warnings)
	}
	allow := func(string) (Access, string) { return AccessAllow, "" }
	if in := Load(repo, repo, home, allow, 0); !strings.Contains(in.Text, "TEAM RULE") {
		t.Errorf("with allow: %q %q", in.Text, in.Warnings)
	}
}

func TestOnDemandNestedAndRules(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	write(t, filepath.Join(repo, "CLAUDE.md"), "ROOT @AGENTS.md")
	write(t, filepath.Join(repo, "AGENTS.md"), "ROOT AGENTS")
	write(t, filepath.Join(repo, ".claude", "rules", "go.md"), "---\npaths: \"**/*.go\"\n---\nGO RULE")
	write(t, filepath.Join(repo, "pkg", "CLAUDE.md"), "PKG @../AGENTS.md @AGENTS.md")
	write(t, filepath.Join(repo, "pkg", "AGENTS.md"), "PKG AGENTS")
	write(t, filepath.Join(repo, "pkg", "CLAUDE.local.md"), "PKG LOCAL")
	write(t, filepath.Join(repo, "pkg", "deep", "CLAUDE.md"), "DEEP")
	write(t, filepath.Join(repo, "pkg", ".claude", "rules", "ts.md"), "---\npaths: \"*.ts\"\n---\nTS RULE")
	write(t, filepath.Join(repo, "pkg", ".claude", "rules", "any.md"), "PKG ALWAYS")
	repo = canonical(repo)
	in := Load(repo, repo, home, nil, 0)
	if strings.Contains(in.Text, "PKG") || strings.Contains(in.Text, "GO RULE") {
		t.Fatalf("nested or path-scoped text at the start:\n%s", in.Text)
	}
	od := &OnDemand{CWD: repo, RepoRoot: repo, Home: home, Rules: in.Rules, Loaded: in.Sources}
	have := map[string]bool{}
	add := func(p string) string {
		found, warns := od.For(p, func(s string) bool { return have[s] })
		if len(warns) > 0 {
			t.Errorf("warnings %q", warns)
		}
		for _, f := range found {
			have[f.Path] = true
		}
		if len(found) == 0 {
			return ""
		}
		return Reminder(p, found)
	}
	// A file at the top: no nested file, no rule.
	if got := add(filepath.Join(repo, "README.md")); got != "" {
		t.Errorf("top file brought %q", got)
	}
	got := add(filepath.Join(repo, "pkg", "a.go"))
	for _, s := range []string{"GO RULE", "PKG", "PKG AGENTS", "PKG LOCAL", "PKG ALWAYS"} {
		if !strings.Contains(got, s) {
			t.Errorf("reading pkg/a.go did not bring %q:\n%s", s, got)
		}
	}
	for _, s := range []string{"ROOT AGENTS", "DEEP", "TS RULE"} {
		if strings.Contains(got, s) {
			t.Errorf("reading pkg/a.go brought %q", s)
		}
	}
	// What the reminder holds is what Given reads back (a resumed session's record).
	back := Given(got)
	for p := range have {
		if !slices.Contains(back, p) {
			t.Errorf("Given misses %s: %q", p, back)
		}
	}
	if again := add(filepath.Join(repo, "pkg", "b.go")); again != "" {
		t.Errorf("second read repeated:\n%s", again)
	}
	if got := add(filepath.Join(repo, "pkg", "deep", "x.ts")); !strings.Contains(got, "DEEP") || !strings.Contains(got, "TS RULE") || strings.Contains(got, "PKG AGENTS") {
		t.Errorf("deep read:\n%s", got)
	}
	// Forgotten (a summary dropped them): given again.
	have = map[string]bool{}
	if got := add(filepath.Join(repo, "pkg", "c.go")); !strings.Contains(got, "GO RULE") || !strings.Contains(got, "PKG AGENTS") {
		t.Errorf("after forgetting:\n%s", got)
	}
	if Given("Contents of /etc/passwd:\n") != nil {
		t.Errorf("Given reads text that is no reminder")
	}
}

// The session's budget bounds what is added: past it a file is named, not given.
func TestOnDemandBudget(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, "a", "CLAUDE.md"), strings.Repeat("A", 3000))
	write(t, filepath.Join(repo, "b", "CLAUDE.md"), strings.Repeat("B", 3000))
	od := &OnDemand{CWD: repo, Budget: 4000}
	f1, _ := od.For(filepath.Join(repo, "a", "x"), func(string) bool { return false })
	f2, _ := od.For(filepath.Join(repo, "b", "x"), func(string) bool { return false })
	if len(f1) != 1 || !strings.Contains(f1[0].Text, "AAA") || len(f2) != 1 || strings.Contains(f2[0].Text, "BBB") || !strings.Contains(f2[0].Text, "left out") {
		t.Fatalf("f1 %.80q f2 %.200q", f1, f2)
	}
	if g := Given(Reminder("x", f2)); len(g) != 1 || g[0] != f2[0].Path {
		t.Errorf("Given(left out) = %q", g)
	}
}

// The user's rules folder as a link to / is walked within the bounds, quickly.
func TestUserRulesLinkToRoot(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(home, ".claude", "rules")); err != nil {
		t.Fatal(err)
	}
	in := Load(repo, repo, home, nil, 0) // ends: at most maxRuleEntries entries are looked at
	if len(in.Warnings) > 50 {
		t.Errorf("%d warnings", len(in.Warnings))
	}
}

// A project's rules folder that is itself a link to / is skipped whole, with one warning.
func TestProjectRulesFolderLinkToRoot(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(repo, ".claude", "rules")); err != nil {
		t.Fatal(err)
	}
	in := Load(repo, repo, home, nil, 0)
	if len(in.Warnings) != 1 || !strings.Contains(in.Warnings[0], "outside the project") || len(in.Sources) != 0 || len(in.Skipped) != 1 {
		t.Errorf("warnings %q sources %q skipped %q", in.Warnings, in.Sources, in.Skipped)
	}
}

func TestNestedDirs(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, "CLAUDE.md"), "top: not nested")
	write(t, filepath.Join(repo, "a", "CLAUDE.md"), "a")
	write(t, filepath.Join(repo, "a", "b", "c", "AGENTS.md"), "c")
	write(t, filepath.Join(repo, "d", ".claude", "rules", "x.md"), "d")
	write(t, filepath.Join(repo, ".git", "sub", "CLAUDE.md"), "in .git")
	write(t, filepath.Join(repo, "e", "README.md"), "none")
	if err := os.Symlink(repo, filepath.Join(repo, "e", "loop")); err != nil {
		t.Fatal(err)
	}
	dirs, more := NestedDirs(repo)
	want := []string{filepath.Join(repo, "a"), filepath.Join(repo, "a", "b", "c"), filepath.Join(repo, "d")}
	if !slices.Equal(dirs, want) || more {
		t.Errorf("NestedDirs = %q, %v; want %q", dirs, more, want)
	}
}
