package permission

import (
	"errors"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

func mustRule(t testing.TB, text string) Rule {
	t.Helper()
	r, err := ParseRule(settings.Rule{Text: text, Source: "/proj/.ouro/settings.json", Root: "/proj"})
	if err != nil {
		t.Fatalf("ParseRule(%q): %v", text, err)
	}
	return r
}

func TestParseRuleMalformed(t *testing.T) {
	cases := []struct{ text, want string }{
		{"", "empty"},
		{"   ", "empty"},
		{"Bash(", `must end with ")"`},
		{"Bash(ls) extra", `must end with ")"`},
		{"Bash)", `")" without "("`},
		{"(ls)", "tool name is missing"},
		{"Bash()", "specifier is empty"},
		{"Bash(  )", "specifier is empty"},
		{"Ba sh", "not a tool name"},
		{"Bash*", "only MCP tool names may end with *"},
		{"*", "only MCP tool names may end with *"},
		{"mcp__srv__*(x)", "takes no specifier"},
		{"TodoWrite(x)", "TodoWrite takes no specifier"},
		{"mcp__srv__tool(arg)", "takes no specifier"},
		{"WebFetch(example.com)", "domain:host"},
		{"WebFetch(domain:)", "domain:host"},
		{"WebFetch(domain:a.com/path)", "domain:host"},
		{"WebFetch(domain:*example.com)", "domain:host"},
		{"Read(!secret)", "negated"},
		{"SlashCommand:/", "SlashCommand rules name one command"},
		{"Read(src/[)", "not a valid path pattern"},
		{"Edit(/a/{b)", "not a valid path pattern"},
	}
	for _, c := range cases {
		_, err := ParseRule(settings.Rule{Text: c.text, Source: "/p/settings.json"})
		if err == nil {
			t.Errorf("ParseRule(%q) accepted a malformed rule", c.text)
			continue
		}
		var re *RuleError
		if !errors.As(err, &re) {
			t.Errorf("ParseRule(%q): error %T is not a *RuleError", c.text, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, "/p/settings.json") || !strings.Contains(msg, "permission rule ") {
			t.Errorf("ParseRule(%q) = %q; want the rule, its source and %q", c.text, msg, c.want)
		}
	}
}

func TestParseRuleForms(t *testing.T) {
	cases := []struct {
		text, tool, spec string
		bare             bool
	}{
		{"Bash", "Bash", "", true},
		{"Bash(*)", "Bash", "", true},
		{" Bash( * ) ", "Bash", "", true},
		{"Bash(npm run test:*)", "Bash", "npm run test:*", false},
		{"Read(./.env)", "Read", "./.env", false},
		{"mcp__srv", "mcp__srv", "", true},
		{"mcp__srv__*", "mcp__srv__*", "", true},
		{"mcp__*", "mcp__*", "", true},
		{"WebFetch(domain:Example.COM)", "WebFetch", "domain:Example.COM", false},
		{"Task(Explore)", "Task", "Explore", false},
		{"SlashCommand:/commit", "Skill", "commit", false},
		{"SlashCommand:/review-pr:*", "Skill", "review-pr", false},
		{"SlashCommand:/myplug:hello", "Skill", "myplug:hello", false},
		{"Skill(pdf-tools)", "Skill", "pdf-tools", false},
	}
	for _, c := range cases {
		r := mustRule(t, c.text)
		if r.Tool != c.tool || r.Specifier != c.spec || r.Bare() != c.bare {
			t.Errorf("ParseRule(%q) = tool %q spec %q bare %v; want %q %q %v", c.text, r.Tool, r.Specifier, r.Bare(), c.tool, c.spec, c.bare)
		}
		if r.Source != "/proj/.ouro/settings.json" || r.Root != "/proj" || r.Text != strings.TrimSpace(c.text) {
			t.Errorf("ParseRule(%q) lost its text, source or root: %+v", c.text, r)
		}
	}
	if got := mustRule(t, "Bash(ls *)").String(); got != "Bash(ls *) (/proj/.ouro/settings.json)" {
		t.Errorf("String() = %q", got)
	}
}

func TestBashRuleMatch(t *testing.T) {
	cases := []struct {
		rule, cmd string
		want      bool
	}{
		{"Bash", "rm -rf /tmp/x", true},
		{"Bash(*)", "anything at all", true},
		{"Bash(ls *)", "ls -la", true},
		{"Bash(ls *)", "ls", true},
		{"Bash(ls *)", "lsof -i", false},
		{"Bash(ls*)", "lsof -i", true},
		{"Bash(ls)", "ls", true},
		{"Bash(ls)", "ls -la", false},
		{"Bash(npm run test:*)", "npm run test", true},
		{"Bash(npm run test:*)", "npm run test --watch", true},
		{"Bash(npm run test:*)", "npm run testing", false},
		{"Bash(npm run *)", "npm run build --prod", true},
		{"Bash(npm run *)", "npm install", false},
		{"Bash(git * main)", "git push origin main", true},
		{"Bash(git * main)", "git push origin main --force", false},
		{"Bash(* --version)", "go --version", true},
		{"Bash(* --version)", "go version", false},
		{"Bash(go test *)", "go test ./...", true},
		{"Bash(go  test   *)", "go test -run X ./pkg", true},
		{"Bash(go test *)", "go vet ./...", false},
		{"Bash(echo *)", "echo a*b", true},
		{"Bash(rm *)", "", false},
		{"Read", "cat x", false}, // tool mismatch: the subject is Bash
	}
	for _, c := range cases {
		r := mustRule(t, c.rule)
		if got := r.Match(Subject{Tool: "Bash", Command: c.cmd}); got != c.want {
			t.Errorf("%s matches %q = %v, want %v", c.rule, c.cmd, got, c.want)
		}
	}
}

func TestPathRuleMatch(t *testing.T) {
	const cwd, home = "/proj/sub", "/home/u"
	cases := []struct {
		rule, tool, path string
		want             bool
	}{
		// Anchors.
		{"Read(//etc/passwd)", "Read", "/etc/passwd", true},
		{"Read(//etc/*)", "Read", "/etc/hosts", true},
		{"Read(//etc/*)", "Read", "/etc/ssl/certs/x", true}, // a matched folder covers its contents
		{"Read(~/.ssh/**)", "Read", "/home/u/.ssh/id_rsa", true},
		{"Read(~/.ssh/**)", "Read", "/root/.ssh/id_rsa", false},
		{"Read(~)", "Read", "/home/u/notes.txt", true},
		{"Edit(/src/**)", "Edit", "/proj/src/a/b.go", true}, // relative to the rule's root
		{"Edit(/src/**)", "Edit", "/proj/sub/src/b.go", false},
		{"Edit(src/**)", "Edit", "/proj/sub/src/b.go", true}, // relative to cwd
		{"Edit(src/**)", "Edit", "/proj/src/b.go", false},
		{"Edit(./src/*.go)", "Edit", "/proj/sub/src/b.go", true},
		{"Edit(./src/*.go)", "Edit", "/proj/sub/src/x/b.go", false},
		{"Edit(src/**/*.go)", "Edit", "/proj/sub/src/b.go", true},
		{"Edit(src/**/*.go)", "Edit", "/proj/sub/src/a/b/c.go", true},
		{"Read(./.env)", "Read", "/proj/sub/.env", true},
		{"Read(./.env)", "Read", "/proj/sub/app/.env", false},
		{"Read(.env)", "Read", "/proj/sub/app/.env", true}, // no slash: any depth
		{"Read(.env)", "Read", "/proj/.env", false},        // but below cwd only
		{"Read(*.pem)", "Read", "/proj/sub/a/b/key.pem", true},
		{"Read(secrets/)", "Read", "/proj/sub/x/secrets/token", true},
		{"Read(./secrets/)", "Read", "/proj/sub/secrets/a/token", true},
		{"Read(./secrets/)", "Read", "/proj/sub/secretsfile", false},
		{"Read(../shared/**)", "Read", "/proj/shared/a", true},
		{"Edit(.)", "Write", "/proj/sub/anything", true},
		{"Edit(//)", "Edit", "/anything/at/all", true},
		// Which tools a path rule covers.
		{"Edit(src/**)", "Write", "/proj/sub/src/x", true},
		{"Edit(src/**)", "MultiEdit", "/proj/sub/src/x", true},
		{"Edit(src/**)", "NotebookEdit", "/proj/sub/src/x", true},
		{"Edit(src/**)", "Read", "/proj/sub/src/x", false},
		{"Write(src/**)", "Edit", "/proj/sub/src/x", false},
		{"Read(src/**)", "Grep", "/proj/sub/src", true},
		{"Read(src/**)", "Glob", "/proj/sub/src/a", true},
		{"Read(src/**)", "LS", "/proj/sub/src", true},
		{"Read(src/**)", "Edit", "/proj/sub/src/a", false},
		{"Grep(src/**)", "Read", "/proj/sub/src/a", false},
		{"Grep(src/**)", "Grep", "/proj/sub/src/a", true},
		{"Read(src/**)", "Read", "", false},
		// Special characters in the anchor are literal; escapes in the rule work.
		{`Edit(/\*.txt)`, "Edit", "/proj/*.txt", true},
		{`Edit(/\*.txt)`, "Edit", "/proj/a.txt", false},
		{"Edit(/{a,b}.go)", "Edit", "/proj/b.go", true},
	}
	for _, c := range cases {
		r := mustRule(t, c.rule)
		if got := r.Match(Subject{Tool: c.tool, Path: c.path, CWD: cwd, Home: home}); got != c.want {
			t.Errorf("%s on %s %s = %v, want %v", c.rule, c.tool, c.path, got, c.want)
		}
	}

	// A working directory with glob characters is taken literally.
	r := mustRule(t, "Edit(*.go)")
	if !r.Match(Subject{Tool: "Edit", Path: "/w/[x]/a.go", CWD: "/w/[x]"}) {
		t.Error("a cwd holding [ ] did not anchor literally")
	}
	if r.Match(Subject{Tool: "Edit", Path: "/w/x/a.go", CWD: "/w/[x]"}) {
		t.Error("a cwd holding [ ] was read as a character class")
	}
	// Without a cwd, relative rules match nothing rather than everything.
	if r.Match(Subject{Tool: "Edit", Path: "/a.go"}) {
		t.Error("a relative rule matched with no cwd")
	}
}

func TestOtherRuleMatch(t *testing.T) {
	cases := []struct {
		rule string
		s    Subject
		want bool
	}{
		{"WebFetch", Subject{Tool: "WebFetch", Host: "x.org"}, true},
		{"WebFetch(domain:example.com)", Subject{Tool: "WebFetch", Host: "example.com"}, true},
		{"WebFetch(domain:example.com)", Subject{Tool: "WebFetch", Host: "EXAMPLE.com."}, true},
		{"WebFetch(domain:example.com)", Subject{Tool: "WebFetch", Host: "docs.example.com"}, false},
		{"WebFetch(domain:example.com)", Subject{Tool: "WebFetch", Host: "example.com.evil.org"}, false},
		{"WebFetch(domain:*.example.com)", Subject{Tool: "WebFetch", Host: "docs.example.com"}, true},
		{"WebFetch(domain:*.example.com)", Subject{Tool: "WebFetch", Host: "example.com"}, false},
		{"WebFetch(domain:example.com)", Subject{Tool: "WebFetch"}, false},
		{"mcp__srv", Subject{Tool: "mcp__srv__query"}, true},
		{"mcp__srv", Subject{Tool: "mcp__srv"}, true},
		{"mcp__srv", Subject{Tool: "mcp__srv2__query"}, false},
		{"mcp__srv__*", Subject{Tool: "mcp__srv__query"}, true},
		{"mcp__srv__*", Subject{Tool: "mcp__other__query"}, false},
		{"mcp__*", Subject{Tool: "mcp__any__thing"}, true},
		{"mcp__*", Subject{Tool: "Bash"}, false},
		{"mcp__srv__query", Subject{Tool: "mcp__srv__query"}, true},
		{"mcp__srv__query", Subject{Tool: "mcp__srv__queryAll"}, false},
		{"Task(Explore)", Subject{Tool: "Task", Name: "Explore"}, true},
		{"Task(Explore)", Subject{Tool: "Agent", Name: "Explore"}, true},
		{"Agent(Explore)", Subject{Tool: "Task", Name: "Explore"}, true},
		{"Task(Explore)", Subject{Tool: "Task", Name: "general-purpose"}, false},
		{"Task", Subject{Tool: "Agent", Name: "x"}, true},
		{"Skill(pdf)", Subject{Tool: "Skill", Name: "pdf"}, true},
		{"Skill(pdf)", Subject{Tool: "Skill", Name: "pdf2"}, false},
		{"Skill(pdf*)", Subject{Tool: "Skill", Name: "pdf2"}, true},
		{"Skill(pdf)", Subject{Tool: "Task", Name: "pdf"}, false},
		{"Read", Subject{Tool: "Grep"}, true},
		{"Edit", Subject{Tool: "Write"}, true},
		{"Write", Subject{Tool: "Edit"}, false},
		{"TodoWrite", Subject{Tool: "TodoWrite"}, true},
		{"TodoWrite", Subject{Tool: "TodoRead"}, false},
	}
	for _, c := range cases {
		r := mustRule(t, c.rule)
		if got := r.Match(c.s); got != c.want {
			t.Errorf("%s on %+v = %v, want %v", c.rule, c.s, got, c.want)
		}
	}
}

func TestStarMatch(t *testing.T) {
	cases := []struct {
		p, s string
		want bool
	}{
		{"", "", true},
		{"", "a", false},
		{"*", "", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbY", false},
		{"*a", "bbba", true},
		{"**", "x", true},
		{"a*a*a", "aaaa", true},
		{"a*a*a", "aa", false},
	}
	for _, c := range cases {
		if got := starMatch(c.p, c.s); got != c.want {
			t.Errorf("starMatch(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

// FuzzRuleMatch parses arbitrary rules and matches them against arbitrary subjects: the
// parser and matcher must never panic, and a parsed rule must keep its text.
func FuzzRuleMatch(f *testing.F) {
	seeds := []struct{ rule, cmd, path string }{
		{"Bash(ls *)", "ls -la", "/p/a"},
		{"Bash(npm run test:*)", "npm run test", ""},
		{"Read(//etc/**)", "", "/etc/passwd"},
		{"Edit(~/.bashrc)", "", "/home/u/.bashrc"},
		{"Read(./a/[b-c]/*)", "", "/p/a/b/x"},
		{"Edit(/{a,b}/**)", "", "/p/a/b"},
		{"WebFetch(domain:*.x.org)", "", ""},
		{"mcp__srv__*", "", ""},
		{"Task(Explore)", "", ""},
		{"Bash(((", "*", "/"},
		{"Read(\\)", "", "/\\"},
		{"Bash(*)*)", "**", ""},
	}
	for _, s := range seeds {
		f.Add(s.rule, s.cmd, s.path)
	}
	f.Fuzz(func(t *testing.T, text, cmd, p string) {
		r, err := ParseRule(settings.Rule{Text: text, Source: "fuzz", Root: "/p"})
		if err != nil {
			return
		}
		if r.Text != strings.TrimSpace(text) {
			t.Fatalf("text %q became %q", text, r.Text)
		}
		for _, tool := range []string{"Bash", "Read", "Edit", "Write", "Grep", "WebFetch", "Task", "Skill", "mcp__srv__x", r.Tool} {
			r.Match(Subject{Tool: tool, Command: cmd, Path: p, Host: cmd, Name: cmd, CWD: "/p/c", Home: "/h"})
		}
		if r.Bare() && !r.Match(Subject{Tool: r.Tool}) && !strings.HasSuffix(r.Tool, "*") {
			t.Fatalf("bare rule %q does not match its own tool", text)
		}
	})
}
