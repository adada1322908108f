//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Claude Code's commands (.claude/commands/*.md, ~/.claude/commands) are skills: /name
// runs one headless with $ARGUMENTS, the model sees those it may invoke, and a skill of
// the same name wins over a command.
func TestClaudeCodeCommandsRun(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "commands", "fix-issue.md"),
		"---\ndescription: Fix a GitHub issue\nargument-hint: [issue-number]\n---\nFix issue #$ARGUMENTS following our coding standards.\n")
	writeFile(t, filepath.Join(e.dir, ".claude", "commands", "review.md"), "---\ndescription: the review command\n---\nCOMMAND BODY\n")
	writeFile(t, filepath.Join(e.dir, ".claude", "skills", "review", "SKILL.md"), "---\nname: review\ndescription: the review skill\n---\nSKILL BODY\n")
	writeFile(t, filepath.Join(e.home, ".claude", "commands", "standup.md"), "# Write my standup\n\nSummarise yesterday's commits.\n")
	writeFile(t, filepath.Join(e.dir, ".claude", "commands", "frontend", "component.md"),
		"---\ndescription: New component\ndisable-model-invocation: true\n---\nCreate the component $ARGUMENTS.\n")

	srv := e.fake(scripted.Turn{ExpectContains: "Fix issue #123 following our coding standards", Text: "fixed"})
	out, stderr, code := e.run("", "-p", "/fix-issue 123")
	if code != 0 || out != "fixed\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if strings.Contains(stderr, "command") || strings.Contains(stderr, "skill") {
		t.Errorf("warnings about commands Claude Code loads quietly:\n%s", stderr)
	}
	_, tools, system := requestFields(t, srv.Requests()[0].Body)
	if !strings.Contains(strings.Join(tools, ","), "Skill") || !strings.Contains(system, "standup") ||
		!strings.Contains(system, "fix-issue") || strings.Contains(system, "component") {
		t.Errorf("tools %v; catalog in the system prompt:\n%s", tools, system)
	}
	if !strings.Contains(system, "the review skill") || strings.Contains(system, "the review command") {
		t.Errorf("the skill must win over the command of its name:\n%s", system)
	}

	// The model invokes a command through the Skill tool; a subfolder's command is /name.
	call, _ := json.Marshal(map[string]string{"skill": "standup"})
	e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: call}}},
		scripted.Turn{ExpectContains: "Summarise yesterday's commits", Text: "standup written"})
	if out, stderr, code := e.run("", "-p", "write my standup"); code != 0 || out != "standup written\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	e.fake(scripted.Turn{ExpectContains: "Create the component Button.", Text: "made"})
	line := `{"type":"user","message":{"role":"user","content":"/component Button"}}` + "\n"
	if out, stderr, code := e.run(line, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"); code != 0 || !strings.Contains(out, `"result":"made"`) {
		t.Fatalf("stream-json: exit %d, out %q\n%s", code, out, stderr)
	}
	// A prompt that starts with a path is a sentence, not a command.
	e.fake(scripted.Turn{ExpectContains: "/tmp/x is empty", Text: "noted"})
	if out, stderr, code := e.run("", "-p", "/tmp/x is empty"); code != 0 || out != "noted\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
}

// ouro doctor reports --plugin-dir plugins: each plugin, its hooks files, commands,
// skills and agents, and a folder that is not a plugin as skipped with why.
func TestDoctorReportsPlugins(t *testing.T) {
	e := newEnv(t)
	e.vars = append(e.vars, "ANTHROPIC_API_KEY=test-key") // without a key doctor exits 1 (a run could not start)
	plug := filepath.Join(e.dir, "plug")
	writeFile(t, filepath.Join(plug, ".claude-plugin", "plugin.json"), `{"name":"myplug","version":"1.2.0"}`)
	writeFile(t, filepath.Join(plug, "commands", "hello.md"), "---\ndescription: say hello\n---\nHello $ARGUMENTS\n")
	writeFile(t, filepath.Join(plug, "commands", "ci", "nested.md"), "---\ndescription: nested one\n---\nNested\n")
	writeFile(t, filepath.Join(plug, "skills", "lint", "SKILL.md"), "---\nname: lint\ndescription: lint it\n---\nLint.\n")
	writeFile(t, filepath.Join(plug, "agents", "rev.md"), "---\nname: rev\ndescription: reviews\ntools: Read, Grep\n---\nYou review.\n")
	writeFile(t, filepath.Join(plug, "hooks", "hooks.json"),
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}],"NoSuchEvent":[{"hooks":[{"type":"command","command":"true"}]}]}}`)
	out, stderr, code := e.run("", "doctor", "--json", "--plugin-dir", "plug", "--plugin-dir", "missing")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	var r struct {
		Sections []struct {
			Name  string
			Files []struct {
				Path, Status, Detail string
				Warnings             []string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err, out)
	}
	var got []string
	for _, s := range r.Sections {
		if s.Name != "plugins" {
			continue
		}
		for _, f := range s.Files {
			rel, _ := filepath.Rel(e.dir, f.Path)
			if !filepath.IsAbs(f.Path) {
				rel = f.Path
			}
			got = append(got, f.Status+" "+filepath.ToSlash(rel)+" "+f.Detail+" "+strings.Join(f.Warnings, "|"))
		}
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"loaded plug plugin myplug 1.2.0",
		"loaded plug/hooks/hooks.json hooks: NoSuchEvent ×1, PreToolUse ×1",
		`"NoSuchEvent" are skipped`,
		"loaded plug/commands/hello.md command /myplug:hello",
		"loaded plug/commands/ci/nested.md command /myplug:nested",
		"loaded plug/skills/lint/SKILL.md skill /myplug:lint",
		"loaded plug/agents/rev.md agent myplug:rev",
		"skipped missing  plugin missing is skipped",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the plugins section lacks %q:\n%s", want, all)
		}
	}
}

// An agent written by Claude Code's /agents generator (a description that breaks strict
// YAML) keeps its frontmatter hooks: they run on the child's tool calls. Before, the
// line-by-line reading turned hooks: into text and dropped them with a warning.
func TestGeneratedAgentKeepsItsHooks(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.dir, "hook-ran")
	writeFile(t, filepath.Join(e.dir, "notes.txt"), "some notes\n")
	writeFile(t, filepath.Join(e.dir, ".claude", "agents", "reviewer.md"), `---
name: reviewer
description: Use this agent after code changes. Examples: <example>Context: code was written. user: "Review it" assistant: "I'll use the reviewer agent"</example>
tools: Read, Grep
hooks:
  PreToolUse:
    - matcher: "Read"
      hooks:
        - type: command
          command: "echo ran >> `+marker+`"
---
You review code.
`)
	read, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, "notes.txt")})
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("reviewer", "review", "Review notes.txt")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Read", Input: read}}},
		scripted.Turn{ExpectContains: "some notes", Text: "reviewed"},
		scripted.Turn{ExpectContains: "reviewed", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "review")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if strings.Contains(stderr, "hooks ignored") {
		t.Errorf("the agent's hooks were dropped:\n%s", stderr)
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "ran\n" {
		t.Errorf("the agent's PreToolUse hook did not run once: %q, %v\n%s", b, err, stderr)
	}
}

// "Edit:*" is reported once, with what to write instead, not twice.
func TestMalformedRuleWarnedOnce(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"permissions":{"deny":["Edit:*"]}}`)
	e.fake(scripted.Turn{Text: "ok"})
	out, stderr, code := e.run("", "-p", "hi")
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if n := strings.Count(stderr, `rule "Edit:*"`); n != 1 || !strings.Contains(stderr, "write Edit alone") {
		t.Errorf("want one warning about Edit:*, got %d:\n%s", n, stderr)
	}
}

// In the REPL, /skills lists a command with its file and /name runs it.
func TestREPLRunsCommands(t *testing.T) {
	e := newEnv(t)
	cmdFile := filepath.Join(e.dir, ".claude", "commands", "git", "commit.md")
	writeFile(t, cmdFile, "---\ndescription: Commit the staged changes\nargument-hint: [message]\n---\nCommit with message: $ARGUMENTS\n")
	e.fake(scripted.Turn{ExpectContains: "Commit with message: fix parser", Text: "committed"})
	out, stderr, code := e.run("/skills\n/commit fix parser\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"/commit [message]  Commit the staged changes\n    " + cmdFile, "committed"} {
		if !strings.Contains(out, want) {
			t.Errorf("REPL output lacks %q:\n%s", want, out)
		}
	}
}

// Claude Code's other model names ("sonnet[1m]", "opusplan", "default") in settings.json
// choose a model the API knows, without a warning.
func TestSettingsModelClaudeCodeAliases(t *testing.T) {
	for name, want := range map[string]string{"sonnet[1m]": "claude-sonnet-5-5", "opusplan": "claude-sonnet-5-5", "opus[1m]": "claude-opus-5-5"} {
		e := newEnv(t)
		writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"model": "`+name+`"}`)
		srv := e.fake(scripted.Turn{Text: "ok"})
		out, stderr, code := e.run("", "-p", "hi")
		if code != 0 || out != "ok\n" {
			t.Fatalf("%s: exit %d, out %q\n%s", name, code, out, stderr)
		}
		if model, _, _ := requestFields(t, srv.Requests()[0].Body); model != want {
			t.Errorf("model %q asked the API for %q, want %q", name, model, want)
		}
		if strings.Contains(stderr, "model table") {
			t.Errorf("%s: %s", name, stderr)
		}
	}
}

// A command's positional arguments ($0, $1, $ARGUMENTS[N]) are filled as Claude Code
// fills them, quoted words kept together.
func TestCommandPositionalArguments(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "commands", "review-pr.md"),
		"---\ndescription: Review a PR\nargument-hint: [pr-number] [priority] [assignee]\n---\nReview PR #$0 with priority $1 and assign to $ARGUMENTS[2].\n")
	e.fake(scripted.Turn{ExpectContains: "Review PR #456 with priority high and assign to Jane Doe.", Text: "reviewing"})
	if out, stderr, code := e.run("", "-p", `/review-pr 456 high "Jane Doe"`); code != 0 || out != "reviewing\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
}

// Claude Code's older SlashCommand:/name rules act on the command (a skill now), with no
// misleading warning: a denied command is refused to the model.
func TestSlashCommandRules(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "commands", "deploy.md"), "---\ndescription: Deploy the app\n---\nDeploy now.\n")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"permissions":{"deny":["SlashCommand:/deploy"],"allow":["SlashCommand:/review-pr:*"]}}`)
	call, _ := json.Marshal(map[string]string{"skill": "deploy"})
	e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: call}}},
		scripted.Turn{ExpectContains: "denied", Text: "not deploying"})
	out, stderr, code := e.run("", "-p", "ship it", "--output-format", "json")
	if code != 0 || !strings.Contains(out, `"result": "not deploying"`) || !strings.Contains(out, `"tool_name": "Skill"`) {
		t.Fatalf("exit %d, out %s\n%s", code, out, stderr)
	}
	if strings.Contains(stderr, "SlashCommand") {
		t.Errorf("warnings about rules Claude Code accepts:\n%s", stderr)
	}
}

// An agent with tools: "*" gets the parent's tools, not none.
func TestAgentToolsStar(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "agents", "helper.md"), "---\nname: helper\ndescription: helps\ntools: \"*\"\n---\nYou help.\n")
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("helper", "help", "Help out")}},
		scripted.Turn{Text: "helped"},
		scripted.Turn{ExpectContains: "helped", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go")
	if code != 0 || out != "done\n" || strings.Contains(stderr, "helper") {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	_, childTools, _ := requestFields(t, srv.Requests()[1].Body)
	if got := strings.Join(childTools, ","); !strings.Contains(got, "Bash") || !strings.Contains(got, "Read") {
		t.Errorf("child tools = %s", got)
	}
}

// A command whose argument-hint only begins like a YAML list ("[analyze|all] <path>
// [--force]", common in real commands; strict YAML refuses it) loads as Claude Code loads
// it: the hint is text and the command runs with its arguments.
func TestCommandWithAHintStrictYAMLRefusesRuns(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "commands", "gen-doc.md"),
		"---\ndescription: Generate documentation for a source tree\nargument-hint: [analyze|srs|design|all] <source_path> [--force] | help\n---\nDocument $ARGUMENTS now.\n")
	e.fake(scripted.Turn{ExpectContains: "Document all ./src --force now.", Text: "documented"})
	out, stderr, code := e.run("", "-p", "/gen-doc all ./src --force")
	if code != 0 || out != "documented\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if strings.Contains(stderr, "gen-doc") {
		t.Errorf("the command was warned about:\n%s", stderr)
	}
}
