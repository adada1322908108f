//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Issue 13 on real files for the three behaviours first shown only by hand-written ones:
// a hook's "if" condition (item 7), the settings' model and env (item 11) and a command
// marked disable-model-invocation (item 19). Sources and licences: the corpus's SOURCES.md.

// hookScripts writes, for every ".claude/hooks/NAME.sh" a real settings file names, a
// stand-in that appends "NAME <its stdin>" to log: the scripts themselves are code and
// not in the corpus. It returns the names.
func hookScripts(t *testing.T, settingsFile, dir, log string) []string {
	t.Helper()
	data, err := os.ReadFile(settingsFile)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var names []string
	for _, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				name, ok := strings.CutPrefix(h.Command, ".claude/hooks/")
				if !ok || seen[name] {
					continue
				}
				seen[name] = true
				names = append(names, strings.TrimSuffix(name, ".sh"))
				p := filepath.Join(dir, ".claude", "hooks", name)
				writeFile(t, p, "#!/bin/sh\nin=$(cat)\necho \""+strings.TrimSuffix(name, ".sh")+" $in\" >> '"+log+"'\n")
				if err := os.Chmod(p, 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return names
}

// Item 7 on go-to-k/cdk-real-drift's project settings (Apache-2.0): sixteen PreToolUse
// gates on Bash, each limited by an "if" rule such as "Bash(*git*commit*)". Each gate
// runs for the calls its rule matches and for no other: git status runs none, git commit
// the three commit gates, git push the two push gates; the Stop hook, which has no
// condition, runs once.
func TestCorpusHookIfConditions(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "cdk-real-drift")
	log := filepath.Join(e.home, "hooks.log")
	names := hookScripts(t, filepath.Join(corpusDir, "cdk-real-drift/.claude/settings.json"), e.dir, log)
	if len(names) < 10 {
		t.Fatalf("the corpus file names %d hook scripts", len(names))
	}
	e.fake(
		scripted.Turn{ToolCalls: bash("git status --short")},
		scripted.Turn{ToolCalls: bash("git commit --allow-empty -m wip")},
		scripted.Turn{ToolCalls: bash("git push origin HEAD")},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "ship it", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	data, _ := os.ReadFile(log)
	ran := map[string][]string{} // what each command ran
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, in, _ := strings.Cut(line, " ")
		var hookIn struct {
			Event     string `json:"hook_event_name"`
			ToolInput struct {
				Command string `json:"command"`
			} `json:"tool_input"`
		}
		if err := json.Unmarshal([]byte(in), &hookIn); err != nil {
			t.Fatalf("hook %s got %q: %v", name, in, err)
		}
		key := hookIn.Event
		if hookIn.ToolInput.Command != "" {
			key = strings.Fields(hookIn.ToolInput.Command)[1] // status, commit, push
		}
		ran[key] = append(ran[key], name)
	}
	for key, want := range map[string][]string{
		"status": nil,
		"commit": {"branch-gate", "bughunt-clean-gate", "check-gate"},
		"push":   {"branch-gate", "stale-base-gate"},
		"Stop":   {"stop-cleanup-warn"},
	} {
		got := ran[key]
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("for %s the hooks that ran are %v, want %v", key, got, want)
		}
	}
}

// Item 11 on a real user settings file (macalinao/dotfiles' config/claude/settings.json,
// MIT, which its README deploys to ~/.claude/settings.json): its "model": "opus" chooses
// the model sent to the API, resolved as an alias, and its env reaches Bash commands.
func TestCorpusUserSettingsModelAndEnv(t *testing.T) {
	e := newEnv(t)
	data, err := os.ReadFile(filepath.Join(corpusDir, "macalinao-dotfiles/home/.claude/settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Model string            `json:"model"`
		Env   map[string]string `json:"env"`
	}
	if err := json.Unmarshal(data, &s); err != nil || s.Model != "opus" || s.Env["ENABLE_LSP_TOOL"] != "1" {
		t.Fatalf("the corpus file no longer shows the case: model %q env %v (%v)", s.Model, s.Env, err)
	}
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), string(data))
	srv := e.fake(
		scripted.Turn{ToolCalls: bash(`echo "lsp=$ENABLE_LSP_TOOL teams=$CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"`)},
		scripted.Turn{ExpectContains: "lsp=1 teams=1", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "check", "--allowedTools", "Bash(echo *)")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	for i, r := range srv.Requests() {
		if model, _, _ := requestFields(t, r.Body); model != "claude-opus-5-5" {
			t.Errorf("request %d asked for %q, want the settings' opus", i, model)
		}
	}
	// --model still wins over the settings, as in Claude Code.
	e2 := newEnv(t)
	writeFile(t, filepath.Join(e2.home, ".claude", "settings.json"), string(data))
	srv = e2.fake(scripted.Turn{Text: "ok"})
	if out, stderr, code := e2.run("", "-p", "hi", "--model", "haiku"); code != 0 {
		t.Fatalf("exit %d %q\n%s", code, out, stderr)
	}
	if model, _, _ := requestFields(t, srv.Requests()[0].Body); model != "claude-haiku-5-5" {
		t.Errorf("--model haiku asked for %q", model)
	}
}

// Item 19 on obra/superpowers' slash commands (MIT), marked disable-model-invocation by
// their author: they are not in the model's catalog and the Skill tool refuses them, while
// the skill they point to is offered; the user's /brainstorm runs the command, whose text
// sends the model to that skill.
func TestCorpusUserOnlyCommands(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "superpowers")
	call, _ := json.Marshal(map[string]string{"skill": "write-plan"})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: call}}},
		scripted.Turn{ExpectContains: "can only be invoked by the user", Text: "refused"},
	)
	out, stderr, code := e.run("", "-p", "plan the feature")
	if code != 0 || out != "refused\n" || stderr != "" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	_, _, system := requestFields(t, srv.Requests()[0].Body)
	system = strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(system)
	for _, cmd := range []string{"brainstorm", "write-plan", "execute-plan"} {
		if strings.Contains(system, "<name>"+cmd+"</name>") || strings.Contains(system, "Create detailed implementation plan") {
			t.Errorf("the user-only command %s is offered to the model", cmd)
		}
	}
	if !strings.Contains(system, "<name>brainstorming</name>") {
		t.Errorf("the brainstorming skill is not offered:\n%.600s", system)
	}

	skillCall, _ := json.Marshal(map[string]string{"skill": "brainstorming"})
	e2 := newEnv(t)
	useCorpus(t, e2, "superpowers")
	e2.fake(
		scripted.Turn{ExpectContains: "Invoke the superpowers:brainstorming skill", ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: skillCall}}},
		scripted.Turn{ExpectContains: "# Brainstorming Ideas Into Designs", Text: "what are we building?"},
	)
	// The skill's first step asks the person: a -p run ends needs_input (exit 3) with it.
	out, stderr, code = e2.run("", "-p", "/brainstorm a CLI for notes")
	if code != 3 || !strings.Contains(out+stderr, "what are we building?") {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
}
