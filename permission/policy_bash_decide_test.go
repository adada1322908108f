package permission

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/shell"
)

// bashRowCase pins one row of bashDecisions: a command that the row decides, chosen so
// that later rows would also apply, so that a reordering that changes a decision fails.
type bashRowCase struct {
	row    string // the name of the row that must decide
	mode   string
	rules  rules
	line   string // {P} the project, {O} a folder outside
	want   Behavior
	source string // a substring of the verdict's Source
	reason string // a substring of its Reason
	// suggest is the verdict's Suggest, exactly.
	suggest []string
	// confined checks on a view confined to the project (Policy.WithWorkspace), as an
	// isolated agent's is.
	confined bool
}

var bashRowCases = []bashRowCase{
	// Rules on the command come first, even in bypass mode, and deny before ask.
	{row: "deny rule on the command", mode: "bypassPermissions",
		rules: rules{deny: []string{"Bash(curl *)", "Edit(./out.txt)"}, ask: []string{"Bash(curl *)"}},
		line:  "curl -o x https://example.com > out.txt", want: Deny, source: "Bash(curl *)", reason: "is denied by the rule"},
	{row: "deny rule on the command", mode: "default", rules: rules{deny: []string{"Bash(curl *)"}, allow: []string{"Bash(sudo *)"}},
		line: "sudo /usr/bin/curl x", want: Deny, source: "Bash(curl *)"},
	{row: "deny rule on a written path", mode: "bypassPermissions",
		rules: rules{deny: []string{"Edit(./.env)", "Read(./.env)"}, ask: []string{"Bash(sed *)"}},
		line:  "sed -i s/a/b/ .env", want: Deny, source: "Edit(./.env)", reason: "writes {P}/.env, which the rule"},
	{row: "deny rule on a read path", mode: "bypassPermissions",
		rules: rules{deny: []string{"Read(./secrets/**)"}, ask: []string{"Bash(cat *)", "Edit(./out.txt)"}},
		line:  "cat secrets/key > out.txt", want: Deny, source: "Read(./secrets/**)", reason: "reads {P}/secrets/key"},
	{row: "ask rule on the command", mode: "bypassPermissions",
		rules: rules{ask: []string{"Bash(git push *)", "Edit(./out.txt)"}, allow: []string{"Bash(git push *)"}},
		line:  "git push origin main > out.txt", want: Ask, source: "Bash(git push *)", reason: "asks before `git push origin main > out.txt`"},
	{row: "ask rule on a written path", mode: "bypassPermissions", rules: rules{ask: []string{"Edit(./notes.txt)"}},
		line: "echo x > notes.txt", want: Ask, source: "Edit(./notes.txt)", reason: "writes {P}/notes.txt"},
	// Bypass allows what no rule stopped, even an untrusted command writing outside.
	{row: "bypassPermissions mode", mode: "bypassPermissions", line: "sudo rm -rf {O}/x",
		want: Allow, source: "mode bypassPermissions"},
	{row: "bypassPermissions mode", mode: "bypassPermissions", line: "ls", want: Allow, source: "mode bypassPermissions"},
	// ... except out of an isolated agent's workspace.
	{row: "bypassPermissions mode, and the command writes outside an isolated agent's workspace", mode: "bypassPermissions",
		confined: true, line: "sudo cp x {O}/x", want: Ask, source: "outside the workspace", reason: "writes {O}/x, outside the workspace"},
	{row: "bypassPermissions mode", mode: "bypassPermissions", confined: true, line: "sudo rm -rf x",
		want: Allow, source: "mode bypassPermissions"},
	{row: "bypassPermissions mode", mode: "bypassPermissions", confined: true, rules: rules{allow: []string{"Edit(/{O}/**)"}},
		line: "sudo cp x {O}/x", want: Allow, source: "mode bypassPermissions"},
	// An approved command whose writes and reads are fine is allowed, in plan mode too.
	{row: "the command is approved, and so is all it touches", mode: "plan", line: "ls -la src",
		want: Allow, source: "read-only command", reason: "only reads"},
	{row: "the command is approved, and so is all it touches", mode: "plan", line: "X=1",
		want: Allow, source: "no command", reason: "runs no command"},
	{row: "the command is approved, and so is all it touches", mode: "plan", rules: rules{allow: []string{"Bash(go test *)"}},
		line: "go test ./...", want: Allow, source: "Bash(go test *)", reason: "allowed by the rule"},
	{row: "the command is approved, and so is all it touches", mode: "acceptEdits", line: "mkdir -p build",
		want: Allow, source: "mode acceptEdits", reason: "acceptEdits mode allows"},
	{row: "the command is approved, and so is all it touches", mode: "default",
		rules: rules{allow: []string{"Read(/{O}/**)"}}, line: "cat {O}/f", want: Allow, source: "read-only command"},
	// Plan mode writes no file, whatever the allow rules say.
	{row: "plan mode, and the command writes a file", mode: "plan", rules: rules{allow: []string{"Bash(go test *)"}},
		line: "go test ./... > {P}/test.log", want: Deny, source: "mode plan", reason: "writes {P}/test.log"},
	{row: "plan mode, and the command writes a file", mode: "plan", rules: rules{allow: []string{"Bash(*)", "Edit(**)"}},
		line: "sort --ou=x a", want: Deny, source: "mode plan", reason: "plan mode writes no file, whatever the allow rules say"},
	{row: "plan mode, and the command writes a file", mode: "plan", line: "rm x",
		want: Deny, source: "mode plan", reason: "`rm x` writes {P}/x"},
	{row: "plan mode, and the command writes a file", mode: "plan", line: "ls > out.txt",
		want: Deny, source: "mode plan", reason: "`ls > out.txt` writes {P}/out.txt"},
	{row: "plan mode, and the command writes a file", mode: "plan", rules: rules{allow: []string{"Bash(rm *)"}},
		line: "rm $X", want: Deny, source: "mode plan", reason: "only known when it runs"},
	// Plan mode refuses what may change something, instead of asking.
	{row: "plan mode, and the command may change something", mode: "plan", line: "npm install",
		want: Deny, source: "mode plan", reason: "plan mode allows only read-only commands: no allow rule covers `npm install`"},
	// Everything else asks, saying what needs approval and which rules would give it.
	{row: "ask", mode: "default", line: "rm x", want: Ask, source: "no matching rule",
		reason: "no allow rule covers `rm x`", suggest: []string{"Bash(rm x)"}},
	{row: "ask", mode: "default", line: "ls > out.txt", want: Ask, source: "read-only command",
		reason: "`ls > out.txt` writes {P}/out.txt"},
	{row: "ask", mode: "default", line: "sudo ls", want: Ask, source: "no matching rule",
		reason: "runs through sudo, so neither rules nor the read-only set can allow it"},
	{row: "ask", mode: "plan", line: "cat {O}/f", want: Ask, source: "read-only command",
		reason: "reads {O}/f, outside the workspace", suggest: []string{"Read(/{O}/f)"}},
	{row: "ask", mode: "default", rules: rules{allow: []string{"Bash(cp *)"}}, line: "cp a {O}/b",
		want: Ask, source: "Bash(cp *)", reason: "writes {O}/b, outside the workspace", suggest: []string{"Edit(/{O}/b)"}},
	{row: "ask", mode: "acceptEdits", line: "touch .git/config", want: Ask, source: "mode acceptEdits", reason: "a protected path"},
}

func TestBashDecisionRows(t *testing.T) {
	e := newEnv(t)
	fill := strings.NewReplacer("{P}", e.proj, "{O}", e.out)
	covered := map[string]bool{}
	for _, tc := range bashRowCases {
		covered[tc.row] = true
		rs := rules{}
		for _, list := range []struct{ from, to *[]string }{{&tc.rules.allow, &rs.allow}, {&tc.rules.ask, &rs.ask}, {&tc.rules.deny, &rs.deny}} {
			for _, r := range *list.from {
				*list.to = append(*list.to, fill.Replace(r))
			}
		}
		p := e.policy(t, tc.mode, rs)
		if tc.confined {
			p = p.WithWorkspace(p.ws)
		}
		st := p.snapshot(context.Background())
		line := fill.Replace(tc.line)
		a := shell.Analyze(line)
		if len(a.Commands) != 1 || len(a.Ask) > 0 {
			t.Fatalf("%q: want one command the analyser can read, got %d (%q)", line, len(a.Commands), a.Ask)
		}
		v, row := decideBash(st.gatherBash(a.Commands[0]))
		if row != tc.row || v.Behavior != tc.want || !strings.Contains(v.Source, tc.source) ||
			!strings.Contains(v.Reason, fill.Replace(tc.reason)) {
			t.Errorf("%s %q: row %q, %s by %q: %s\n\twant row %q, %s by %q: ...%s...",
				tc.mode, line, row, v.Behavior, v.Source, v.Reason, tc.row, tc.want, tc.source, fill.Replace(tc.reason))
		}
		var want []string
		for _, s := range tc.suggest {
			want = append(want, fill.Replace(s))
		}
		if !slices.Equal(v.Suggest, want) {
			t.Errorf("%s %q: Suggest %q, want %q", tc.mode, line, v.Suggest, want)
		}
	}
	// Every row, and the fallback, is pinned by at least one case.
	names := map[string]bool{"ask": true}
	for _, d := range bashDecisions {
		if names[d.name] {
			t.Errorf("two rows are named %q", d.name)
		}
		names[d.name] = true
		if !covered[d.name] {
			t.Errorf("no case pins the row %q", d.name)
		}
	}
	if !covered["ask"] {
		t.Error("no case pins the fallback ask")
	}
	for name := range covered {
		if !names[name] {
			t.Errorf("a case names the row %q, which the table does not have", name)
		}
	}
}
