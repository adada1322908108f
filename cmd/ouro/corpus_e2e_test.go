//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/skill"
)

// Issue 13: real public Claude Code configurations (testdata/claude-corpus, sources and
// licences in its SOURCES.md) run through the binary unchanged. Each project folder is
// used as the workspace of an `ouro -p` run against the fake model.

const corpusDir = "testdata/claude-corpus"

// corpusSymlinks are the symbolic links the source repositories hold, recreated in the
// copy (a module keeps no symlinks): pydantic-ai's CLAUDE.md is a link to AGENTS.md, and
// some of its .claude/skills are links into .agents/skills.
var corpusSymlinks = map[string][][2]string{
	"pydantic-ai": {
		{"CLAUDE.md", "AGENTS.md"},
		{".claude/skills/complete-partial-pr", "../../.agents/skills/complete-partial-pr"},
		{".claude/skills/i-have-adhd", "../../.agents/skills/i-have-adhd"},
		{".claude/skills/pushing-commits-to-the-repo", "../../.agents/skills/pushing-commits-to-the-repo"},
	},
}

// useCorpus copies the corpus project name into the env's workspace.
func useCorpus(t *testing.T, e *env, name string) {
	t.Helper()
	src := filepath.Join(corpusDir, name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(e.dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range corpusSymlinks[name] {
		if err := os.Symlink(l[1], filepath.Join(e.dir, l[0])); err != nil {
			t.Fatal(err)
		}
	}
}

func corpusProjects(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "LICENSES" {
			out = append(out, e.Name())
		}
	}
	return out
}

// corpusWarnings are the only lines a run in each corpus project may print on stderr:
// what ouro cannot honour in these real files, each said once. Anything else (a file
// skipped, a parse error, a warning about something Claude Code accepts) fails the test.
var corpusWarnings = map[string][]string{
	"awesome-claude-agents": {
		// A name Claude Code itself would not accept as an agent type.
		`devops-cicd-expert.md: name "Python DevOps/CI-CD Expert" should be lowercase letters, digits and hyphens`,
		// WriteFile is no agent harness's tool: a typo in the source file.
		"team-configurator.md: tools: unknown: WriteFile; the agent gets the others",
		// The source repository defines vue-component-architect twice.
		`vue-state-manager.md: agent "vue-component-architect" is already defined by`,
	},
	// Item 14: a deny rule that can never match is reported where it is, with why.
	"glass-claude": {`permission rule "Bash(base64*|:*)" in`, "settings.json: it can never match: ouro checks each command of a line on its own"},
	// SendMessage is ouro's (issue 30, item 21: the names come from the registry).
	"izteam":       {"coder.md: tools: not available in ouro: LSP; the agent gets the others"},
	"oh-my-claude": {`validator.md: no name; using the file name "validator"`},
	// Item 12: with the network open (ouro's default), auto-allowing sandboxed Bash would
	// let a command send what it reads anywhere; ouro says so instead of auto-allowing.
	"sdui-marketplace": {"autoAllowBashIfSandboxed is not applied", notInstalled},
	// Issue 30 item 4: their settings enable plugins of marketplaces, none installed in
	// ouro here; said once per file.
	"lisa":            {notInstalled},
	"lisa-rails":      {notInstalled},
	"lisa-typescript": {notInstalled},
	"wshobson-agents": {
		"image-generator.md: tools: not available in ouro: mcp__meigen__generate_image; the agent gets the others",
		"image-generator.md: none of the tools it names exists in ouro, so the agent has no tools",
		`legacy-modernizer.md: model "fable" is neither an alias`,
		`team-lead.md: model "fable" is neither an alias`,
		"team-lead.md: tools: not available in ouro: TeamCreate, TeamDelete; the agent gets the others",
	},
}

// notInstalled is the note for a settings file enabling plugins ouro has not installed.
const notInstalled = ".claude/settings.json enables plugins not installed in ouro: "

func TestCorpusLoadsWithOnlyExpectedWarnings(t *testing.T) {
	projects := corpusProjects(t)
	if len(projects) < 8 {
		t.Fatalf("the corpus has %d projects", len(projects))
	}
	for _, name := range projects {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			useCorpus(t, e, name)
			e.fake(scripted.Turn{Text: "loaded"})
			out, stderr, code := e.run("", "-p", "hi")
			if code != 0 || out != "loaded\n" {
				t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
			}
			want := corpusWarnings[name]
			seen := make([]int, len(want))
			for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if line == "" {
					continue
				}
				matched := false
				for i, w := range want {
					if strings.Contains(line, w) {
						seen[i]++
						matched = true
					}
				}
				if !matched {
					t.Errorf("unexpected stderr line: %s", line)
				}
			}
			for i, w := range want {
				if seen[i] != 1 {
					t.Errorf("stderr says %q %d times, want once:\n%s", w, seen[i], stderr)
				}
			}
		})
	}
}

// frontmatter returns the YAML between a file's --- lines.
func frontmatter(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(string(data), "---\n", 3)
	if len(parts) < 3 {
		t.Fatalf("%s has no frontmatter", path)
	}
	return parts[1]
}

// Item 1: an agent written by Claude Code's /agents generator, whose one-line description
// holds "Examples: ... user: ... assistant: ..." (invalid YAML), is offered and runs with
// its own prompt.
func TestCorpusGeneratorAgentRuns(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "awesome-claude-agents")
	file := filepath.Join(corpusDir, "awesome-claude-agents/.claude/agents/rails-backend-expert.md")
	var probe map[string]any
	if err := yaml.Unmarshal([]byte(frontmatter(t, file)), &probe); err == nil {
		t.Fatal("the corpus file no longer shows the case: its frontmatter is valid YAML")
	}
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("rails-backend-expert", "tenant models", "Add multi-tenancy to the Account model")}},
		scripted.Turn{Text: "CHILD: added the tenant scope"},
		scripted.Turn{ExpectContains: "CHILD: added the tenant scope", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "add tenancy")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	reqs := srv.Requests()
	if !strings.Contains(string(reqs[0].Body), "rails-backend-expert") || !strings.Contains(string(reqs[0].Body), "MUST BE USED for Rails backend tasks") {
		t.Error("the parent was not offered the agent with its description")
	}
	if _, _, system := requestFields(t, reqs[1].Body); !strings.Contains(system, "# Rails Backend Expert") {
		t.Errorf("the child did not get the agent's prompt:\n%.400s", system)
	}
}

// Item 2: a read-only agent that lists disallowedTools (and no tools, so it inherits the
// rest) is not offered what it disallows.
func TestCorpusDisallowedTools(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "izteam")
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("expert", "assess caching", "Assess the caching layer")}},
		scripted.Turn{Text: "CHILD: use a write-through cache"},
		scripted.Turn{Text: "done"},
	)
	if out, stderr, code := e.run("", "-p", "think"); code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	_, tools, _ := requestFields(t, srv.Requests()[1].Body)
	got := strings.Join(tools, ",")
	for _, banned := range []string{"Edit", "Write", "Bash"} {
		if contains(tools, banned) {
			t.Errorf("the read-only agent was offered %s: %s", banned, got)
		}
	}
	for _, kept := range []string{"Read", "Grep", "Glob"} {
		if !contains(tools, kept) {
			t.Errorf("the agent lost %s: %s", kept, got)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Item 4: Claude Code's legacy and current tool names in real agents map onto ouro's
// tools: MultiEdit onto Edit; the Task* list tools are ouro's own since the task list (s10).
func TestCorpusLegacyToolNames(t *testing.T) {
	for _, tc := range []struct {
		project, agent, want string
	}{
		{"awesome-claude-agents", "backend-developer", "LS,Read,Grep,Glob,Bash,Write,Edit,WebSearch,WebFetch"},
		// SendMessage is ouro's too (issue 30, item 21: the names come from the registry).
		{"wshobson-agents", "team-reviewer", "Read,Glob,Grep,Bash,TaskList,TaskGet,TaskUpdate,SendMessage"},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			e := newEnv(t)
			useCorpus(t, e, tc.project)
			srv := e.fake(
				scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall(tc.agent, "work", "Do the work")}},
				scripted.Turn{Text: "CHILD: done"},
				scripted.Turn{Text: "done"},
			)
			if out, stderr, code := e.run("", "-p", "go"); code != 0 || out != "done\n" {
				t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
			}
			_, tools, _ := requestFields(t, srv.Requests()[1].Body)
			got := append([]string(nil), tools...)
			want := strings.Split(tc.want, ",")
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("child tools = %v, want %v", tools, tc.want)
			}
		})
	}
}

// Item 5: agents' model values from a real collection: "fable" (unknown) falls back to
// the session's model, "haiku" resolves as an alias, "inherit" keeps the session's.
func TestCorpusAgentModels(t *testing.T) {
	for _, tc := range []struct{ agent, want string }{
		{"framework-migration-legacy-modernizer", "claude-sonnet-5-5"},
		{"c4-code", "claude-haiku-5-5"},
		{"arm-cortex-expert", "claude-sonnet-5-5"},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			e := newEnv(t)
			useCorpus(t, e, "wshobson-agents")
			srv := e.fake(
				scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall(tc.agent, "work", "Do the work")}},
				scripted.Turn{Text: "CHILD: done"},
				scripted.Turn{Text: "done"},
			)
			if out, stderr, code := e.run("", "-p", "go", "--model", "sonnet"); code != 0 || out != "done\n" {
				t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
			}
			if model, _, _ := requestFields(t, srv.Requests()[1].Body); model != tc.want {
				t.Errorf("the child asked for %q, want %q", model, tc.want)
			}
		})
	}
}

// Item 6: a project settings file with a WorktreeCreate hook (an event ouro once did not
// know; it now runs it when a worktree is made) starts without a warning, and the hooks
// ouro knows in a real file run (lisa-rails' SessionEnd, PreToolUse
// and PostToolUse on Task, which call a tool that is not installed and succeed anyway).
func TestCorpusUnknownHookEventStarts(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "lisa-typescript")
	e.fake(scripted.Turn{ToolCalls: bash("echo worked > out.txt")}, scripted.Turn{Text: "ran"})
	out, stderr, code := e.run("", "-p", "go", "--allowedTools", "Bash(echo *)")
	if code != 0 || out != "ran\n" || strings.Contains(stderr, `are skipped`) {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(e.dir, "out.txt")); string(data) != "worked\n" {
		t.Errorf("the Bash call did not run: %q", data)
	}
}

// Item 14: pydantic-ai allows "Bash(PYRIGHT_PYTHON_IGNORE_WARNINGS=1 uv run pyright *)".
// In the project, the rule loads without a "can never match" warning and the command
// runs without asking (headless, default mode: anything not allowed is denied). The same
// file also allows "Bash(uv run:*)", which matches first; so the rule is then taken alone
// from the real file: it allows the line with its variable, not the line without.
func TestCorpusRuleWithEnvPrefix(t *testing.T) {
	denials := func(t *testing.T, out string) []string {
		t.Helper()
		var res struct {
			PermissionDenials []struct {
				ToolInput map[string]any `json:"tool_input"`
			} `json:"permission_denials"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var cmds []string
		for _, d := range res.PermissionDenials {
			cmds = append(cmds, fmt.Sprint(d.ToolInput["command"]))
		}
		return cmds
	}
	const pyright = "PYRIGHT_PYTHON_IGNORE_WARNINGS=1 uv run pyright pydantic_ai_slim/pydantic_ai/mcp.py"
	e := newEnv(t)
	useCorpus(t, e, "pydantic-ai")
	e.fake(
		scripted.Turn{ToolCalls: bash(pyright)},
		scripted.Turn{ToolCalls: bash("PYRIGHT_PYTHON_IGNORE_WARNINGS=1 python -c 'print(1)'")},
		scripted.Turn{Text: "checked"},
	)
	out, stderr, code := e.run("", "-p", "typecheck", "--output-format", "json")
	if code != 0 || strings.Contains(stderr, "never match") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if got := denials(t, out); len(got) != 1 || !strings.Contains(got[0], "python -c") {
		t.Errorf("want only the python call denied, got %q", got)
	}

	var settings struct {
		Permissions struct{ Allow []string } `json:"permissions"`
	}
	data, err := os.ReadFile(filepath.Join(corpusDir, "pydantic-ai/.claude/settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &settings); err != nil {
		t.Fatal(err)
	}
	var rule string
	for _, r := range settings.Permissions.Allow {
		if strings.HasPrefix(r, "Bash(PYRIGHT_PYTHON_IGNORE_WARNINGS=1 ") {
			rule = r
		}
	}
	if rule == "" {
		t.Fatal("the corpus file no longer holds the rule")
	}
	alone := newEnv(t)
	alone.fake(
		scripted.Turn{ToolCalls: bash(pyright)},
		scripted.Turn{ToolCalls: bash("uv run pyright pydantic_ai_slim/pydantic_ai/mcp.py")},
		scripted.Turn{Text: "checked"},
	)
	out, stderr, code = alone.run("", "-p", "typecheck", "--output-format", "json", "--allowedTools", rule)
	if code != 0 || strings.Contains(stderr, "never match") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if got := denials(t, out); len(got) != 1 || strings.Contains(got[0], "PYRIGHT") {
		t.Errorf("the rule alone: want only the call without the variable denied, got %q", got)
	}
}

// Item 16: lisa's CLAUDE.md is "@AGENTS.md", and pydantic-ai's CLAUDE.md is a symlink to
// AGENTS.md: either way AGENTS.md is in the prompt once, with no cycle warning.
func TestCorpusAgentsMDOnce(t *testing.T) {
	for _, tc := range []struct{ project, marker string }{
		{"lisa", "# Lisa Agent Instructions"},
		{"pydantic-ai", "# Your primary responsibility is to the project and its users"},
	} {
		t.Run(tc.project, func(t *testing.T) {
			e := newEnv(t)
			useCorpus(t, e, tc.project)
			srv := e.fake(scripted.Turn{Text: "ok"})
			out, stderr, code := e.run("", "-p", "hi")
			if code != 0 || strings.Contains(stderr, "cycle") {
				t.Fatalf("exit %d %q\n%s", code, out, stderr)
			}
			_, _, system := requestFields(t, srv.Requests()[0].Body)
			if n := strings.Count(system, tc.marker); n != 1 {
				t.Errorf("AGENTS.md is in the prompt %d times", n)
			}
			// A skill whose description has colons (item 20) is offered like the others.
			if tc.project == "lisa" && !strings.Contains(system, "analyze-plugin") {
				t.Error("lisa's analyze-plugin skill is not offered")
			}
		})
	}
}

// Items 18-20: a user's skill folder of 24 real skills whose full catalog is over the
// budget: every name is still offered. A skill without a name (pydantic-ai's
// pre-push-review) is named after its folder; skills reached through symlinks load once;
// a real skill's body is what the Skill tool returns.
func TestCorpusSkills(t *testing.T) {
	t.Run("catalog keeps every name", func(t *testing.T) {
		e := newEnv(t)
		useCorpus(t, e, "skills-collection")
		cat, warns := skill.Discover(skill.Options{Dir: e.dir, Home: e.home})
		if len(warns) != 0 || len(cat.Names()) != 24 {
			t.Fatalf("%d skills, warnings %v", len(cat.Names()), warns)
		}
		if full := cat.Prompt(-1); len(full) <= skill.DefaultBudget {
			t.Fatalf("the corpus no longer shows the case: its full catalog is %d bytes, within the budget", len(full))
		}
		call, _ := json.Marshal(map[string]string{"skill": "systematic-debugging"})
		srv := e.fake(
			scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: call}}},
			scripted.Turn{ExpectContains: "NO FIXES WITHOUT ROOT CAUSE INVESTIGATION FIRST", Text: "loaded"},
		)
		out, stderr, code := e.run("", "-p", "debug this")
		if code != 0 || out != "loaded\n" {
			t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
		}
		_, _, system := requestFields(t, srv.Requests()[0].Body)
		for _, n := range cat.Names() {
			if !strings.Contains(system, n) {
				t.Errorf("skill %s is not named to the model", n)
			}
		}
	})
	t.Run("pydantic-ai", func(t *testing.T) {
		e := newEnv(t)
		useCorpus(t, e, "pydantic-ai")
		srv := e.fake(scripted.Turn{Text: "ok"})
		if out, stderr, code := e.run("", "-p", "hi"); code != 0 || stderr != "" {
			t.Fatalf("exit %d %q\n%s", code, out, stderr)
		}
		_, _, system := requestFields(t, srv.Requests()[0].Body)
		for _, n := range []string{"pre-push-review", "address-feedback", "testing-skill", "i-have-adhd", "complete-partial-pr", "add-new-model", "pushing-commits-to-the-repo"} {
			if c := strings.Count(system, n+"/SKILL.md"); c != 1 {
				t.Errorf("skill %s is listed %d times", n, c)
			}
		}
	})
}

// Item 14 and the rules Claude Code users rely on: glass-claude's deny rules hold even in
// bypassPermissions mode (curl is refused), and the one that can never match,
// "Bash(base64*|:*)", was reported when it loaded instead of failing silently.
func TestCorpusDenyRulesHold(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "glass-claude")
	e.fake(
		scripted.Turn{ToolCalls: bash("curl -s http://127.0.0.1:9/exfiltrate")},
		scripted.Turn{ToolCalls: bash("echo made > made.txt")},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
	if code != 0 || !strings.Contains(stderr, `"Bash(base64*|:*)"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var res struct {
		PermissionDenials []struct {
			ToolInput map[string]any `json:"tool_input"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.PermissionDenials) != 1 || !strings.Contains(fmt.Sprint(res.PermissionDenials[0].ToolInput["command"]), "curl") {
		t.Errorf("want the curl call denied by the file's rule, got %+v", res.PermissionDenials)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "made.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
}
