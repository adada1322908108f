package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/shell"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// env is a project folder, a home folder and a folder outside both, all real paths.
type env struct {
	proj, home, out string
}

func newEnv(t testing.TB) env {
	t.Helper()
	real := func(d string) string {
		r, err := filepath.EvalSymlinks(d)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	e := env{proj: real(t.TempDir()), home: real(t.TempDir()), out: real(t.TempDir())}
	for _, d := range []string{"src", ".git", "secrets"} {
		if err := os.MkdirAll(filepath.Join(e.proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// rules is a rule set by list, as a settings file would hold it.
type rules struct{ allow, ask, deny []string }

func (e env) policy(t testing.TB, mode string, rs rules) *Policy {
	t.Helper()
	ws, err := workspace.New(e.proj)
	if err != nil {
		t.Fatal(err)
	}
	conv := func(texts []string) []settings.Rule {
		var out []settings.Rule
		for _, x := range texts {
			out = append(out, settings.Rule{Text: x, Source: filepath.Join(e.proj, ".ouro", "settings.json"), Root: e.proj})
		}
		return out
	}
	s := &settings.Settings{Permissions: settings.Permissions{Allow: conv(rs.allow), Ask: conv(rs.ask), Deny: conv(rs.deny)}}
	p, err := NewPolicy(PolicyConfig{Settings: s, Workspace: ws, Mode: mode, Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	if probs := p.Problems(); len(probs) > 0 {
		t.Fatalf("rules did not parse: %v", probs)
	}
	return p
}

// call builds a tool call; in holds the input with {P}, {H} and {O} standing for the
// project, home and outside folders.
func (e env) call(name, in string) tool.Call {
	in = strings.NewReplacer("{P}", e.proj, "{H}", e.home, "{O}", e.out).Replace(in)
	return tool.Call{ID: "toolu_1", Name: name, Input: json.RawMessage(in)}
}

func bash(cmd string) string {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return string(b)
}

type policyCase struct {
	name, tool, in string
	want           Behavior
	source         string // a part of Verdict.Source
	suggest        []string
}

func runPolicyCases(t *testing.T, e env, p *Policy, cases []policyCase) {
	t.Helper()
	for _, c := range cases {
		v := p.Check(context.Background(), e.call(c.tool, c.in))
		if v.Behavior != c.want {
			t.Errorf("%s: %s %s = %v (source %q, reason %q), want %v", c.name, c.tool, c.in, v.Behavior, v.Source, v.Reason, c.want)
			continue
		}
		if c.source != "" && !strings.Contains(v.Source, c.source) {
			t.Errorf("%s: source %q does not contain %q (reason %q)", c.name, v.Source, c.source, v.Reason)
		}
		if c.suggest != nil {
			want := c.suggest
			if len(want) == 1 && want[0] == "" {
				want = nil
			}
			if !reflect.DeepEqual(v.Suggest, want) {
				t.Errorf("%s: suggested %q, want %q", c.name, v.Suggest, want)
			}
		}
		if v.Reason == "" {
			t.Errorf("%s: no reason given", c.name)
		}
	}
}

func TestPolicyDefaultMode(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "", rules{})
	runPolicyCases(t, e, p, []policyCase{
		{"read inside", "Read", `{"file_path":"{P}/src/a.go"}`, Allow, "read-only tool", nil},
		{"read relative", "Read", `{"file_path":"src/a.go"}`, Allow, "read-only tool", nil},
		{"read outside", "Read", `{"file_path":"{O}/x"}`, Ask, "outside the workspace", []string{"Read(/" + e.out + "/x)"}},
		{"read in home", "Read", `{"file_path":"{H}/notes.md"}`, Ask, "outside the workspace", []string{"Read(~/notes.md)"}},
		{"glob default path", "Glob", `{"pattern":"**/*.go"}`, Allow, "read-only tool", nil},
		{"glob absolute pattern outside", "Glob", `{"pattern":"{O}/**/*.go"}`, Ask, "outside", []string{"Read(/" + e.out + "/**)"}},
		{"glob relative pattern climbing out", "Glob", `{"pattern":"../../**/*.go"}`, Ask, "outside", nil},
		{"glob climbing out from a path", "Glob", `{"pattern":"../*.go","path":"{P}"}`, Ask, "outside", nil},
		{"glob climbing within", "Glob", `{"pattern":"../a/*.go","path":"{P}/src"}`, Allow, "read-only tool", nil},
		{"grep outside", "Grep", `{"pattern":"x","path":"{O}"}`, Ask, "outside", nil},
		{"ls inside", "LS", `{"path":"{P}/src"}`, Allow, "", nil},
		{"edit inside", "Edit", `{"file_path":"{P}/src/a.go","old_string":"a","new_string":"b"}`, Ask, "no matching rule", []string{"Edit(src/a.go)"}},
		{"write top level", "Write", `{"file_path":"{P}/a.go","content":""}`, Ask, "", []string{"Edit(./a.go)"}},
		{"write protected", "Write", `{"file_path":"{P}/.git/config","content":""}`, Ask, "protected path", []string{""}},
		{"bash read-only", "Bash", bash("ls -la src && git status"), Allow, "read-only command", nil},
		{"bash needs rule", "Bash", bash("go test ./..."), Ask, "no matching rule", []string{"Bash(go test *)"}},
		{"bash script suggestion", "Bash", bash("npm run build"), Ask, "", []string{"Bash(npm run build *)"}},
		{"bash compound", "Bash", bash("ls -la\nrm -rf build"), Ask, "", []string{"Bash(rm *)"}},
		{"bash two rules", "Bash", bash("go vet ./... && make lint"), Ask, "", []string{"Bash(go vet *)", "Bash(make lint)"}},
		{"bash hard deny", "Bash", bash("rm -rf /"), Deny, "hard deny", nil},
		{"bash redirect inside", "Bash", bash("echo x > out.txt"), Ask, "", nil},
		{"bash reads outside", "Bash", bash("cat {O}/secret"), Ask, "read-only command", []string{"Read(/" + e.out + "/secret)"}},
		{"bash eval", "Bash", bash("eval x"), Ask, "shell analysis", []string{""}},
		{"bash command substitution name", "Bash", bash("$(echo rm) -rf x"), Ask, "shell analysis", []string{""}},
		{"bash empty", "Bash", bash(""), Allow, "no command", nil},
		{"webfetch", "WebFetch", `{"url":"https://Example.com/a","prompt":"x"}`, Ask, "", []string{"WebFetch(domain:example.com)"}},
		{"todo", "TodoWrite", `{"todos":[]}`, Allow, "session tool", nil},
		{"task", "Task", `{"subagent_type":"Explore","prompt":"x","description":"d"}`, Allow, "session tool", nil},
		{"session cron job", "CronCreate", `{"cron":"* * * * *","prompt":"x"}`, Allow, "session tool", nil},
		{"durable cron job outlives the session", "CronCreate", `{"cron":"* * * * *","prompt":"x","durable":true}`, Ask, "", []string{"CronCreate"}},
		{"wake-up", "ScheduleWakeup", `{"delaySeconds":60,"reason":"r","prompt":"x"}`, Allow, "session tool", nil},
		{"mcp", "mcp__db__query", `{"sql":"select 1"}`, Ask, "", []string{"mcp__db__query"}},
		{"invalid input", "Read", `{"file_path":7}`, Deny, "invalid input", nil},
		{"no path", "Edit", `{"old_string":"a","new_string":"b"}`, Deny, "invalid input", nil},
	})
}

func TestPolicyAcceptEdits(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "acceptEdits", rules{})
	runPolicyCases(t, e, p, []policyCase{
		{"edit inside", "Edit", `{"file_path":"{P}/src/a.go"}`, Allow, "mode acceptEdits", nil},
		{"multiedit inside", "MultiEdit", `{"file_path":"{P}/src/a.go"}`, Allow, "mode acceptEdits", nil},
		{"notebook inside", "NotebookEdit", `{"notebook_path":"{P}/n.ipynb"}`, Allow, "mode acceptEdits", nil},
		{"edit outside", "Edit", `{"file_path":"{O}/a.go"}`, Ask, "", []string{"Edit(/" + e.out + "/a.go)"}},
		{"edit .git", "Edit", `{"file_path":"{P}/.git/config"}`, Ask, "protected path", nil},
		{"edit .ouro", "Write", `{"file_path":"{P}/.ouro/settings.json"}`, Ask, "protected path", nil},
		{"edit .claude", "Write", `{"file_path":"{P}/sub/.claude/settings.local.json"}`, Ask, "protected path", nil},
		{"edit .mcp.json", "Write", `{"file_path":"{P}/.mcp.json"}`, Ask, "protected path", nil},
		{"edit bashrc", "Edit", `{"file_path":"{H}/.bashrc"}`, Ask, "protected path", nil},
		{"edit zshrc via tilde", "Edit", `{"file_path":"~/.zshrc"}`, Ask, "protected path", nil},
		// The user's ~/.ouro.json and ~/.claude.json hold MCP servers and trusted folders.
		{"write ~/.ouro.json", "Write", `{"file_path":"{H}/.ouro.json"}`, Ask, "protected path", []string{""}},
		{"edit ~/.claude.json via tilde", "Edit", `{"file_path":"~/.claude.json"}`, Ask, "protected path", []string{""}},
		{"redirect to ~/.ouro.json", "Bash", bash("echo {} > ~/.ouro.json"), Ask, "", []string{""}},
		// Skills, agents and commands are ordinary content (their grants wait for review).
		{"write a skill", "Write", `{"file_path":"{P}/.claude/skills/deploy/SKILL.md"}`, Allow, "mode acceptEdits", nil},
		{"write an agent", "Write", `{"file_path":"{P}/.ouro/agents/helper.md"}`, Allow, "mode acceptEdits", nil},
		{"write a command", "Edit", `{"file_path":"{P}/.claude/commands/ship.md"}`, Allow, "mode acceptEdits", nil},
		{"skills dir climbs back", "Write", `{"file_path":"{P}/.claude/skills/../settings.json"}`, Ask, "protected path", nil},
		{"settings inside a skill", "Write", `{"file_path":"{P}/.claude/skills/x/.claude/settings.json"}`, Ask, "protected path", nil},
		{"the skills folder itself", "Bash", bash("rm -r .claude/skills"), Ask, "", nil},
		{"git hooks stay", "Write", `{"file_path":"{P}/.git/skills/hooks/x"}`, Ask, "protected path", nil},
		{"gitignore is not .git", "Write", `{"file_path":"{P}/.gitignore"}`, Allow, "mode acceptEdits", nil},
		{"mkdir", "Bash", bash("mkdir -p build/x && touch build/x/y"), Allow, "mode acceptEdits", nil},
		{"mv inside", "Bash", bash("mv a.txt b.txt"), Allow, "mode acceptEdits", nil},
		{"cp outside", "Bash", bash("cp a.txt {O}/b.txt"), Ask, "", nil},
		{"cd then touch outside", "Bash", bash("cd {O} && touch x"), Ask, "", nil},
		{"mv into .git", "Bash", bash("mv hook .git/hooks/pre-commit"), Ask, "", []string{""}},
		{"rm still asks", "Bash", bash("rm a.txt"), Ask, "no matching rule", []string{"Bash(rm *)"}},
		{"redirect inside", "Bash", bash("echo x > out.txt"), Allow, "read-only command", nil},
		{"redirect to bashrc", "Bash", bash("echo x >> ~/.bashrc"), Ask, "read-only command", []string{""}},
		{"redirect outside", "Bash", bash("echo x > {O}/f"), Ask, "", []string{"Edit(/" + e.out + "/f)"}},
		{"read-only still free", "Bash", bash("grep -r foo src"), Allow, "read-only command", nil},
		// Relative paths are taken from wherever an earlier cd moved the shell.
		{"cd then write inside", "Bash", bash("cd src && touch a.go"), Allow, "mode acceptEdits", nil},
		{"cd .. then write", "Bash", bash("cd .. && touch x"), Ask, "", nil},
		{"cd into .git", "Bash", bash("cd .git && echo x > config"), Ask, "", []string{""}},
		{"cd that may fail, both inside", "Bash", bash("cd src; touch a.go"), Allow, "mode acceptEdits", nil},
		{"cd that may fail, one outside", "Bash", bash("cd {O}; touch a.go"), Ask, "", nil},
		{"cd to a folder known at run time", "Bash", bash("cd $D && touch a.go"), Ask, "", nil},
		{"cd home then rc file", "Bash", bash("cd ~ && echo x >> .bashrc"), Ask, "", []string{""}},
	})
}

func TestPolicyPlanMode(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "plan", rules{allow: []string{"Bash(go test *)"}})
	runPolicyCases(t, e, p, []policyCase{
		{"read", "Read", `{"file_path":"{P}/a"}`, Allow, "read-only tool", nil},
		{"read outside asks", "Read", `{"file_path":"{O}/a"}`, Ask, "", nil},
		{"edit", "Edit", `{"file_path":"{P}/a"}`, Deny, "mode plan", nil},
		{"ls", "Bash", bash("ls"), Allow, "read-only command", nil},
		{"unlisted command", "Bash", bash("make build"), Deny, "mode plan", nil},
		{"redirect", "Bash", bash("echo x > f"), Deny, "mode plan", nil},
		{"eval", "Bash", bash("eval ls"), Deny, "mode plan", nil},
		{"allowed by rule", "Bash", bash("go test ./..."), Allow, "Bash(go test *)", nil},
		{"webfetch asks", "WebFetch", `{"url":"https://x.org"}`, Ask, "", nil},
		{"mcp", "mcp__srv__t", `{}`, Deny, "mode plan", nil},
		{"todo", "TodoWrite", `{}`, Allow, "", nil},
	})
}

func TestPolicyDontAsk(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "dontAsk", rules{allow: []string{"Bash(git *)"}, ask: []string{"Bash(git push *)"}})
	runPolicyCases(t, e, p, []policyCase{
		{"read", "Read", `{"file_path":"{P}/a"}`, Allow, "", nil},
		{"edit", "Edit", `{"file_path":"{P}/a"}`, Deny, "mode dontAsk", []string{""}},
		{"read outside", "Read", `{"file_path":"{O}/a"}`, Deny, "mode dontAsk", nil},
		{"allowed", "Bash", bash("git commit -m x"), Allow, "Bash(git *)", nil},
		{"ask rule", "Bash", bash("git push origin main"), Deny, "Bash(git push *)", nil},
		{"unlisted", "Bash", bash("curl x"), Deny, "mode dontAsk", nil},
	})
	v := p.Check(context.Background(), e.call("Bash", bash("curl x")))
	if !strings.Contains(v.Reason, "dontAsk") || !strings.Contains(v.Reason, "curl x") {
		t.Errorf("dontAsk reason %q should name the mode and the command", v.Reason)
	}
}

func TestPolicyBypass(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "bypassPermissions", rules{deny: []string{"Bash(curl *)", "Read(./.env)"}, ask: []string{"Bash(git push *)"}})
	runPolicyCases(t, e, p, []policyCase{
		{"anything", "Bash", bash("make deploy && npm publish"), Allow, "mode bypassPermissions", nil},
		{"protected", "Edit", `{"file_path":"{P}/.git/config"}`, Allow, "mode bypassPermissions", nil},
		{"outside", "Write", `{"file_path":"{O}/x"}`, Allow, "", nil},
		{"redirect to rc", "Bash", bash("echo x >> ~/.bashrc"), Allow, "", nil},
		{"eval", "Bash", bash("eval $X"), Allow, "", nil},
		{"hard deny", "Bash", bash("ls; sudo rm -r -f /"), Deny, "hard deny", nil},
		{"deny rule still holds", "Bash", bash("curl evil.sh"), Deny, "Bash(curl *)", nil},
		{"read deny still holds", "Read", `{"file_path":"{P}/.env"}`, Deny, "Read(./.env)", nil},
		{"ask rule still asks", "Bash", bash("git push"), Ask, "Bash(git push *)", nil},
		{"mcp", "mcp__x__y", `{}`, Allow, "", nil},
	})
}

func TestPolicyRules(t *testing.T) {
	e := newEnv(t)
	if err := os.Symlink(e.out, filepath.Join(e.proj, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.out, "target"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(e.out, "target"), filepath.Join(e.proj, "secret-link")); err != nil {
		t.Fatal(err)
	}
	p := e.policy(t, "", rules{
		allow: []string{"Bash(npm run *)", "Bash(git *)", "Bash(go test *)", "Bash(rm *)", "Bash(sed *)", "Bash(apt *)",
			"Bash(npm test *)", "Edit(src/**)", "Edit(link/**)", "WebFetch(domain:example.com)", "mcp__db", "Bash(cat *)"},
		ask: []string{"Bash(git push *)", "Edit(src/generated/**)"},
		deny: []string{"Bash(curl *)", "Read(./.env)", "Read(./secrets/**)", "Edit(~/.ssh/**)", "Task(general-purpose)",
			"Read(./secret-link)", "Read(//" + e.out[1:] + "/private)", "mcp__db__drop"},
	})
	runPolicyCases(t, e, p, []policyCase{
		// Bash: every command on its own.
		{"all allowed", "Bash", bash("npm run build && npm run test"), Allow, "Bash(npm run *)", nil},
		{"one not allowed", "Bash", bash("npm run build && make"), Ask, "", []string{"Bash(make)"}},
		{"denied inside a compound", "Bash", bash("ls && curl x | sh"), Deny, "Bash(curl *)", nil},
		{"denied through wrapper", "Bash", bash("timeout 5 curl x"), Deny, "Bash(curl *)", nil},
		{"denied through env", "Bash", bash("env curl x"), Deny, "Bash(curl *)", nil},
		{"denied in substitution", "Bash", bash("echo $(curl x)"), Deny, "Bash(curl *)", nil},
		{"denied in bash -c", "Bash", bash(`bash -c "curl x"`), Deny, "Bash(curl *)", nil},
		{"ask rule before allow rule", "Bash", bash("git push origin main"), Ask, "Bash(git push *)", []string{""}},
		{"allow rule", "Bash", bash("git commit -m 'a b'"), Allow, "Bash(git *)", nil},
		{"sudo is not the allowed command", "Bash", bash("sudo apt install x"), Ask, "", []string{""}},
		{"risky env is not the allowed command", "Bash", bash("LD_PRELOAD=/tmp/x.so npm test"), Ask, "", []string{""}},
		{"harmless env", "Bash", bash("NODE_ENV=test npm test"), Allow, "Bash(npm test *)", nil},
		// Paths a command writes.
		{"redirect inside with allowed command", "Bash", bash("go test ./... > out.txt 2>&1"), Allow, "Bash(go test *)", nil},
		{"redirect outside", "Bash", bash("go test ./... > {O}/out.txt"), Ask, "", []string{"Edit(/" + e.out + "/out.txt)"}},
		{"rm inside", "Bash", bash("rm -rf build"), Allow, "Bash(rm *)", nil},
		{"rm outside", "Bash", bash("rm -rf {O}/x"), Ask, "", nil},
		{"rm dynamic", "Bash", bash("rm -rf $DIR"), Ask, "", []string{""}},
		{"rm from xargs", "Bash", bash("find . -name '*.o' | xargs rm"), Ask, "", []string{""}},
		{"rm glob hitting .git", "Bash", bash("rm -rf .g*"), Ask, "", []string{""}},
		{"rm star is fine", "Bash", bash("rm -f *.o"), Allow, "", nil},
		{"rm .git", "Bash", bash("rm -rf .git"), Ask, "", []string{""}},
		{"sed -i outside", "Bash", bash("sed -i s/a/b/ {O}/hosts"), Ask, "", nil},
		{"sed -i inside", "Bash", bash("sed -i -e s/a/b/ f.txt"), Allow, "Bash(sed *)", nil},
		{"redirect into denied edit", "Bash", bash("echo key >> ~/.ssh/authorized_keys"), Deny, "Edit(~/.ssh/**)", nil},
		{"tee to rc", "Bash", bash("echo x | tee -a ~/.zshrc"), Ask, "", []string{""}},
		// Read denials cover reads by tools and commands, and edits.
		{"read denied", "Read", `{"file_path":"{P}/.env"}`, Deny, "Read(./.env)", nil},
		{"edit of read-denied", "Edit", `{"file_path":"{P}/.env"}`, Deny, "Read(./.env)", nil},
		{"cat denied", "Bash", bash("cat .env"), Deny, "Read(./.env)", nil},
		{"input redirect denied", "Bash", bash("sort < .env"), Deny, "Read(./.env)", nil},
		{"grep in denied folder", "Grep", `{"pattern":"k","path":"secrets"}`, Deny, "Read(./secrets/**)", nil},
		{"deny on a symlink's name", "Read", `{"file_path":"{P}/secret-link"}`, Deny, "Read(./secret-link)", nil},
		{"deny on a symlink's target", "Read", `{"file_path":"{O}/private"}`, Deny, "/private", nil},
		// Edit rules.
		{"edit allowed", "Edit", `{"file_path":"{P}/src/a.go"}`, Allow, "Edit(src/**)", nil},
		{"write allowed by Edit", "Write", `{"file_path":"{P}/src/b.go"}`, Allow, "Edit(src/**)", nil},
		{"edit ask rule", "Edit", `{"file_path":"{P}/src/generated/x.go"}`, Ask, "Edit(src/generated/**)", []string{""}},
		{"edit not covered", "Edit", `{"file_path":"{P}/main.go"}`, Ask, "", []string{"Edit(./main.go)"}},
		{"allow does not cover protected", "Edit", `{"file_path":"{P}/src/.git/config"}`, Ask, "protected path", nil},
		{"allow does not follow a symlink out", "Edit", `{"file_path":"{P}/link/x"}`, Ask, "", nil},
		// Other tools.
		{"webfetch allowed", "WebFetch", `{"url":"https://example.com/x"}`, Allow, "WebFetch(domain:example.com)", nil},
		{"webfetch subdomain", "WebFetch", `{"url":"https://docs.example.com/x"}`, Ask, "", []string{"WebFetch(domain:docs.example.com)"}},
		{"mcp server allowed", "mcp__db__query", `{}`, Allow, "mcp__db", nil},
		{"mcp tool denied", "mcp__db__drop", `{}`, Deny, "mcp__db__drop", nil},
		{"task denied", "Agent", `{"subagent_type":"general-purpose"}`, Deny, "Task(general-purpose)", nil},
		{"task other type", "Task", `{"subagent_type":"Explore"}`, Allow, "", nil},
	})

	// A deny reason names what was refused, the rule and its file.
	v := p.Check(context.Background(), e.call("Bash", bash("ls && curl evil.sh")))
	for _, w := range []string{"curl evil.sh", "Bash(curl *)", filepath.Join(e.proj, ".ouro", "settings.json")} {
		if !strings.Contains(v.Reason, w) {
			t.Errorf("deny reason %q does not contain %q", v.Reason, w)
		}
	}
}

func TestPolicyHidden(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "", rules{deny: []string{"Bash", "mcp__srv", "WebFetch(domain:x.com)", "Task(Explore)", "mcp__other__drop"}})
	cases := map[string]bool{
		"Bash": true, "mcp__srv__a": true, "mcp__srv__b": true, "mcp__other__drop": true, "mcp__other__query": false,
		"WebFetch": false, "Task": false, "Read": false, "Edit": false,
	}
	for name, want := range cases {
		if got := p.Hidden(name); got != want {
			t.Errorf("Hidden(%s) = %v, want %v", name, got, want)
		}
	}
	if !e.policy(t, "", rules{deny: []string{"Bash(*)"}}).Hidden("Bash") {
		t.Error("Bash(*) is Bash: it hides the tool")
	}
}

func TestPolicyMalformedRulesAreSkipped(t *testing.T) {
	e := newEnv(t)
	ws, _ := workspace.New(e.proj)
	s := &settings.Settings{Permissions: settings.Permissions{
		Deny:  []settings.Rule{{Text: "Bash(", Source: "/x/settings.json"}, {Text: "Bash(curl *)", Source: "/x/settings.json"}},
		Allow: []settings.Rule{{Text: "WebFetch(example.com)", Source: "--allowedTools"}},
	}}
	p, err := NewPolicy(PolicyConfig{Settings: s, Workspace: ws, Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	probs := p.Problems()
	if len(probs) != 2 || !strings.Contains(probs[0].Error(), `"Bash("`) || !strings.Contains(probs[0].Error(), "/x/settings.json") ||
		!strings.Contains(probs[1].Error(), "--allowedTools") {
		t.Errorf("problems = %v", probs)
	}
	if v := p.Check(context.Background(), e.call("Bash", bash("curl x"))); v.Behavior != Deny {
		t.Errorf("the good rule next to a bad one was lost: %+v", v)
	}
}

func TestPolicyModes(t *testing.T) {
	e := newEnv(t)
	ws, _ := workspace.New(e.proj)
	if _, err := NewPolicy(PolicyConfig{Workspace: ws, Mode: "yolo"}); err == nil || !strings.Contains(err.Error(), "yolo") {
		t.Errorf("unknown mode: err = %v", err)
	}
	if _, err := NewPolicy(PolicyConfig{}); err == nil {
		t.Error("a policy without a workspace was built")
	}
	s := &settings.Settings{Permissions: settings.Permissions{DefaultMode: settings.Sourced[string]{Value: "acceptEdits"}}}
	p, err := NewPolicy(PolicyConfig{Settings: s, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode() != ModeAcceptEdits {
		t.Errorf("mode = %s, want the settings' defaultMode", p.Mode())
	}
	edit := e.call("Edit", `{"file_path":"{P}/a"}`)
	if v := p.Check(context.Background(), edit); v.Behavior != Allow {
		t.Errorf("acceptEdits: %+v", v)
	}
	if err := p.SetMode(ModePlan); err != nil {
		t.Fatal(err)
	}
	if v := p.Check(context.Background(), edit); v.Behavior != Deny {
		t.Errorf("after SetMode(plan): %+v", v)
	}
	if err := p.SetMode("nope"); err == nil {
		t.Error("SetMode accepted an unknown mode")
	}
	if err := p.SetMode(""); err == nil {
		t.Error("SetMode accepted an empty mode")
	}
}

func TestPolicyWritableRoots(t *testing.T) {
	e := newEnv(t)
	ws, _ := workspace.New(e.proj)
	p, err := NewPolicy(PolicyConfig{Workspace: ws, Mode: "acceptEdits", WritableRoots: []string{e.out}, Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	if v := p.Check(context.Background(), e.call("Write", `{"file_path":"{O}/x"}`)); v.Behavior != Allow {
		t.Errorf("a write in a writable root: %+v", v)
	}
	if v := p.Check(context.Background(), e.call("Bash", bash("touch {O}/y"))); v.Behavior != Allow {
		t.Errorf("touch in a writable root: %+v", v)
	}
}

func TestSessionAndLocalRules(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "", rules{})
	goTest := e.call("Bash", bash("go test ./..."))
	if v := p.Check(context.Background(), goTest); v.Behavior != Ask {
		t.Fatalf("before: %+v", v)
	}
	if err := p.AddSessionRule("Bash(go test *)"); err != nil {
		t.Fatal(err)
	}
	if v := p.Check(context.Background(), goTest); v.Behavior != Allow || v.Source != "Bash(go test *) (this session)" {
		t.Errorf("after a session rule: %+v", v)
	}
	if err := p.AddSessionRule("Bash("); err == nil {
		t.Error("a malformed session rule was accepted")
	}

	// An "always" rule goes into .ouro/settings.local.json, keeping what is there.
	local := filepath.Join(e.proj, ".ouro", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := `{"model": "x", "permissions": {"allow": ["Read"], "deny": ["Bash(curl *)"], "defaultMode": "plan"}, "hooks": {"Stop": []}}`
	if err := os.WriteFile(local, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if p.LocalSettingsPath() != local {
		t.Errorf("LocalSettingsPath = %s", p.LocalSettingsPath())
	}
	if err := p.AddLocalRule("Edit(src/x.go)"); err != nil {
		t.Fatal(err)
	}
	if err := p.AddLocalRule("Edit(src/x.go)"); err != nil { // twice: written once
		t.Fatal(err)
	}
	if v := p.Check(context.Background(), e.call("Edit", `{"file_path":"{P}/src/x.go"}`)); v.Behavior != Allow {
		t.Errorf("the always rule does not apply this session: %+v", v)
	}
	// The rule in force names the file it was saved to, once: not "this session".
	_, _, allowed := p.Rules()
	var sources []string
	for _, r := range allowed {
		if r.Text == "Edit(src/x.go)" {
			sources = append(sources, r.Source)
		}
	}
	if !reflect.DeepEqual(sources, []string{local}) {
		t.Errorf("the saved rule's sources = %q, want [%s]", sources, local)
	}
	var doc struct {
		Model       string
		Hooks       map[string][]any
		Permissions struct {
			Allow, Deny []string
			DefaultMode string
		}
	}
	data, _ := os.ReadFile(local)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Model != "x" || doc.Permissions.DefaultMode != "plan" || doc.Hooks == nil ||
		!reflect.DeepEqual(doc.Permissions.Allow, []string{"Read", "Edit(src/x.go)"}) || !reflect.DeepEqual(doc.Permissions.Deny, []string{"Bash(curl *)"}) {
		t.Errorf("settings.local.json = %s", data)
	}
	if st, _ := os.Stat(local); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's 0600 kept", st.Mode().Perm())
	}
	// The file it wrote loads back as settings the next session reads.
	s, err := settings.Load(settings.LoadOptions{UserHome: e.home, ProjectDir: e.proj})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range s.Permissions.Allow {
		found = found || (r.Text == "Edit(src/x.go)" && r.Source == local)
	}
	if !found {
		t.Errorf("the saved rule is not loaded back: %+v", s.Permissions.Allow)
	}
}

func TestAppendAllowRule(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "new", ".ouro", "settings.local.json")
	if err := AppendAllowRule(fresh, "Bash(go test *)"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(fresh)
	if !strings.Contains(string(data), `"Bash(go test *)"`) {
		t.Errorf("created file = %s", data)
	}
	for _, bad := range []string{`[1]`, `{"permissions": []}`, `{"permissions": {"allow": "Read"}}`, `{broken`} {
		p := filepath.Join(dir, "bad.json")
		os.WriteFile(p, []byte(bad), 0o644)
		if err := AppendAllowRule(p, "Read"); err == nil {
			t.Errorf("%s: no error, and the file would have been replaced", bad)
		}
		if got, _ := os.ReadFile(p); string(got) != bad {
			t.Errorf("%s: the file was changed to %s", bad, got)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(fresh))
	if len(entries) != 2 || entries[0].Name() != ".gitignore" {
		t.Errorf("temporary files left behind: %v", entries)
	}
	// The local file is kept out of git by a .gitignore beside it, listed once.
	ignore, _ := os.ReadFile(filepath.Join(filepath.Dir(fresh), ".gitignore"))
	if strings.Count(string(ignore), filepath.Base(fresh)+"\n") != 1 {
		t.Errorf(".gitignore = %q", ignore)
	}
}

// FuzzPolicyCheck runs arbitrary shell lines and file paths through the policy: it must
// never panic, and a line the hard-deny set refuses is refused in every mode.
func FuzzPolicyCheck(f *testing.F) {
	for _, s := range []string{"ls -la", "rm -rf /", "echo x > ~/.bashrc", "cd .. && rm -rf *", "cat < .env | tee -a .git/config",
		"sed -i -e s/a/b/ f", "xargs rm", "$(x) y", "a=1 b=2", "dd of=/dev/sda", "find / -delete", "../../etc/passwd", "~", "\x00"} {
		f.Add(s)
	}
	e := newEnv(f)
	policies := map[string]*Policy{}
	for _, m := range []string{"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"} {
		policies[m] = e.policy(f, m, rules{allow: []string{"Bash(rm *)", "Edit(src/**)"}, deny: []string{"Read(./.env)"}})
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, hard := HardDeny(shell.Analyze(s))
		for m, p := range policies {
			v := p.Check(context.Background(), e.call("Bash", bash(s)))
			if hard && v.Behavior != Deny {
				t.Fatalf("%s: hard-denied %q got %v", m, s, v.Behavior)
			}
			in, _ := json.Marshal(map[string]string{"file_path": s})
			p.Check(context.Background(), tool.Call{Name: "Write", Input: in})
		}
	})
}

func TestPolicyRuleRootThroughSymlink(t *testing.T) {
	e := newEnv(t)
	link := filepath.Join(t.TempDir(), "proj-link")
	if err := os.Symlink(e.proj, link); err != nil {
		t.Fatal(err)
	}
	ws, _ := workspace.New(e.proj)
	s := &settings.Settings{Permissions: settings.Permissions{
		Allow: []settings.Rule{{Text: "Edit(/src/**)", Source: "x", Root: link}},
	}}
	p, err := NewPolicy(PolicyConfig{Settings: s, Workspace: ws, Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	if v := p.Check(context.Background(), e.call("Edit", `{"file_path":"{P}/src/a.go"}`)); v.Behavior != Allow {
		t.Errorf("a rule rooted at a symlink to the project: %+v", v)
	}
}

func TestReadDeniedFollowsReadAndGrepDenyRules(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "", rules{deny: []string{"Read(./.env)", "Grep(secrets/**)"}, allow: []string{"Read(./notes.md)"}})
	for path, want := range map[string]bool{
		filepath.Join(e.proj, ".env"):          true,
		filepath.Join(e.proj, "secrets/k.txt"): true,
		filepath.Join(e.proj, "notes.md"):      false,
		filepath.Join(e.proj, "main.go"):       false,
	} {
		if got := p.ReadDenied(path); got != want {
			t.Errorf("ReadDenied(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestWithModeIsAViewUnderItsOwnMode(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default", rules{deny: []string{"Bash(rm *)"}})
	plan, err := p.WithMode(ModePlan)
	if err != nil {
		t.Fatal(err)
	}
	edits, err := p.WithMode(ModeAcceptEdits)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	edit := e.call("Edit", `{"file_path":"{P}/a.go"}`)
	if v := p.Check(ctx, edit); v.Behavior != Ask {
		t.Errorf("default: %+v", v)
	}
	if v := plan.Check(ctx, edit); v.Behavior != Deny {
		t.Errorf("plan view: %+v", v)
	}
	if v := edits.Check(ctx, edit); v.Behavior != Allow {
		t.Errorf("acceptEdits view: %+v", v)
	}
	if v := edits.Check(ctx, e.call("Bash", bash("rm x"))); v.Behavior != Deny {
		t.Errorf("the base's deny rule does not hold in the view: %+v", v)
	}
	// Rules the session adds later reach the views; the base keeps its mode.
	if err := p.AddSessionRule("Bash(make *)"); err != nil {
		t.Fatal(err)
	}
	if v := plan.Check(ctx, e.call("Bash", bash("make"))); v.Behavior != Allow {
		t.Errorf("a session rule added to the base did not reach the view: %+v", v)
	}
	if p.Mode() != ModeDefault || plan.Mode() != ModePlan {
		t.Errorf("modes: base %s, view %s", p.Mode(), plan.Mode())
	}
	if _, err := p.WithMode("yolo"); err == nil {
		t.Error("an unknown mode was accepted")
	}
	for _, c := range []struct {
		a, b Mode
		want bool
	}{{ModePlan, ModeDefault, true}, {ModeDontAsk, ModeDefault, true}, {ModeDefault, ModeDefault, true},
		{ModeAcceptEdits, ModeDefault, false}, {ModeBypass, ModeAcceptEdits, false}, {ModeDefault, ModePlan, false}} {
		if got := Stricter(c.a, c.b); got != c.want {
			t.Errorf("Stricter(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

func TestPlanModeReadOnlyOther(t *testing.T) {
	// Plan mode refuses what it cannot tell only reads; a tool known to only read (an MCP
	// tool a trusted server marks read-only) is asked about instead, as in default mode.
	p := newEnv(t).policy(t, "plan", rules{})
	call := func(name string) Verdict {
		return p.Check(context.Background(), tool.Call{Name: name, Input: []byte(`{}`)})
	}
	if v := call("mcp__srv__look"); v.Behavior != Deny || !v.FromMode {
		t.Fatalf("plan mode did not refuse an unknown tool: %+v", v)
	}
	p.SetReadOnlyTools(func(n string) bool { return n == "mcp__srv__look" })
	if v := call("mcp__srv__look"); v.Behavior != Ask {
		t.Fatalf("a read-only tool is not asked about in plan mode: %+v", v)
	}
	if v := call("mcp__srv__write"); v.Behavior != Deny || !v.FromMode {
		t.Fatalf("plan mode did not refuse a tool that may write: %+v", v)
	}
	view, err := p.WithMode(ModePlan)
	if err != nil {
		t.Fatal(err)
	}
	if v := view.Check(context.Background(), tool.Call{Name: "mcp__srv__look", Input: []byte(`{}`)}); v.Behavior != Ask {
		t.Fatalf("a subagent's view of the policy lost the read-only tools: %+v", v)
	}
}

func TestWithWorkspaceConfinesToTheWorktree(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "acceptEdits", rules{deny: []string{"Bash(rm *)"}})
	wt := filepath.Join(e.proj, ".ouro", "worktrees", "a")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(e.proj)
	if err != nil {
		t.Fatal(err)
	}
	cws, err := ws.Clone(wt)
	if err != nil {
		t.Fatal(err)
	}
	view := p.WithWorkspace(cws)
	ctx := context.Background()
	in := func(path string) tool.Call { return e.call("Edit", `{"file_path":"`+path+`"}`) }
	if v := view.Check(ctx, in(filepath.Join(wt, "x.go"))); v.Behavior != Allow {
		t.Errorf("an edit in the worktree: %+v", v)
	}
	if v := view.Check(ctx, in(filepath.Join(e.proj, "src", "x.go"))); v.Behavior != Ask {
		t.Errorf("an edit in the main checkout from the worktree: %+v", v)
	}
	if v := view.Check(ctx, in(filepath.Join(wt, ".git"))); v.Behavior != Ask {
		t.Errorf("the worktree's .git file is not protected: %+v", v)
	}
	if v := view.Check(ctx, in(filepath.Join(e.proj, ".ouro", "worktrees", ".pending", "b"))); v.Behavior != Ask {
		t.Errorf("ouro's worktree records are not protected: %+v", v)
	}
	// The main session may edit a worktree's files like any content of .ouro/worktrees.
	if v := p.Check(ctx, in(filepath.Join(wt, "x.go"))); v.Behavior != Allow {
		t.Errorf("the base on a worktree file: %+v", v)
	}
	if v := view.Check(ctx, e.call("Bash", bash("rm x"))); v.Behavior != Deny {
		t.Errorf("the base's deny rule does not hold in the view: %+v", v)
	}
	// The view follows the session's mode.
	if err := p.SetMode(ModePlan); err != nil {
		t.Fatal(err)
	}
	if v := view.Check(ctx, in(filepath.Join(wt, "x.go"))); v.Behavior != Deny || view.Mode() != ModePlan {
		t.Errorf("plan mode did not reach the view: %+v", v)
	}
}

func TestWorktreeToolsAskOnlyToDiscard(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default", rules{})
	ctx := context.Background()
	for in, want := range map[string]Behavior{
		`{"name":"a"}`: Allow,
	} {
		if v := p.Check(ctx, e.call("EnterWorktree", in)); v.Behavior != want {
			t.Errorf("EnterWorktree %s: %+v", in, v)
		}
	}
	for in, want := range map[string]Behavior{
		`{"action":"keep"}`:                          Allow,
		`{"action":"remove"}`:                        Allow,
		`{"action":"remove","discard_changes":true}`: Ask,
	} {
		if v := p.Check(ctx, e.call("ExitWorktree", in)); v.Behavior != want {
			t.Errorf("ExitWorktree %s: %+v, want %s", in, v, want)
		}
	}
}
