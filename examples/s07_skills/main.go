// s07: skills, knowledge loaded on demand. A skill is a folder with a SKILL.md (YAML
// frontmatter, then Markdown instructions) and optional references/, scripts/ and
// assets/. Only the catalog (each skill's name, description and location) rides in the
// system prompt; the Skill tool returns a skill's body when the model asks for it, and
// makes the skill's folder readable so its reference files can be opened afterwards.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s07_skills "write the release notes"
//
// Without a key it plays a scripted model that calls Skill, then Reads the skill's
// reference file. The skill lives in a user-level folder outside the project, so the
// Read works only because invoking the skill added its folder to the workspace.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

const skillMD = `---
name: release-notes
description: >
  Writes release notes from the git log in the house style. Use when the user asks
  for release notes, a changelog entry or a summary of what shipped.
allowed-tools: Bash(git log:*) Read
---
# Release notes

Write release notes for: $ARGUMENTS

1. Read ${OURO_SKILL_DIR}/references/style.md for the house style.
2. List the commits with ` + "`git log --oneline`" + `.
3. Group them under Added, Changed and Fixed.
`

const styleMD = `# House style
- One line per change, in the imperative.
- Name the user-visible effect, not the code.
`

func main() {
	base, err := os.MkdirTemp("", "ouro-s07-")
	check(err)
	defer os.RemoveAll(base)
	project, home := filepath.Join(base, "project"), filepath.Join(base, "home")
	skillDir := filepath.Join(home, ".ouro", "skills", "release-notes")
	write(filepath.Join(project, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(filepath.Join(skillDir, "SKILL.md"), skillMD)
	write(filepath.Join(skillDir, "references", "style.md"), styleMD)

	cat, warnings := skill.Discover(skill.Options{Dir: project, Home: home})
	for _, w := range warnings {
		fmt.Println("warning:", w)
	}
	system := "You are a coding agent.\n\n" + cat.Prompt(skill.DefaultBudget)
	fmt.Printf("── system prompt (%d characters; the body is not in it)\n%s\n", len(system), system)

	ws, err := workspace.New(project)
	check(err)
	files := tools.NewFileState()
	registry := tool.NewRegistry(
		tools.NewRead(ws, files), tools.NewGlob(ws), tools.NewGrep(ws),
		skill.NewTool(cat, ws, func(_ context.Context, inv skill.Invocation) string {
			fmt.Printf("── onInvoke: %s asks for %q for the rest of the turn\n", inv.Skill.Name, inv.Skill.AllowedTools)
			return inv.Text
		}),
	)

	readRef, _ := json.Marshal(map[string]string{"file_path": filepath.Join(skillDir, "references", "style.md")})
	script := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: []byte(`{"skill":"release-notes","args":"v0.7"}`)}}},
		{ExpectContains: "Write release notes for: v0.7", ToolCalls: []scripted.ToolCall{{Name: "Read", Input: readRef}}},
		{ExpectContains: "One line per change", Text: "(scripted) Loaded the release-notes skill, then read its style guide."},
	}})
	var model llm.Provider = script
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}

	a, err := agent.New(agent.Config{
		Provider: model, Model: llm.DefaultModel, System: system, Tools: registry,
		Observers: []agent.Observer{func(e agent.Event) {
			if e.Type == agent.EventToolEnd {
				fmt.Printf("── %s %s (error=%v)\n%s\n", e.Call.Name, e.Call.Input, e.Result.IsError, e.Result.ResultText())
			}
		}},
	})
	check(err)
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "Write the release notes for v0.7."
	}
	out := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock(prompt))
	fmt.Printf("%s\n[%s after %d turns]\n", out.Result, out.Status, out.Turns)

	if model == script {
		first := script.Requests()[0].System
		fmt.Printf("── first request: skill listed %v, body absent %v\n",
			strings.Contains(first, "<name>release-notes</name>"), !strings.Contains(first, "House style") && !strings.Contains(first, "Group them under"))
	}
}

func write(path, content string) {
	check(os.MkdirAll(filepath.Dir(path), 0o755))
	check(os.WriteFile(path, []byte(content), 0o644))
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
