package subagent

import (
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

// The header Claude Code's /agents generator writes: a one-line description full of
// "Examples: … user: … assistant: …", which strict YAML rejects.
const generated = `---
name: test-runner
description: Use this agent when code was changed and tests should run. Examples: <example>Context: The user fixed a bug. user: "I fixed the parser" assistant: "Let me use the test-runner agent to run the tests"</example>
tools: Bash, Glob, Grep, Read, MultiEdit, NotebookRead, WebSearch, BashOutput, mcp__github__get_issue, Frobnicate
disallowedTools: Write, Agent
model: fable
color: green
---

You run tests.
`

func TestClaudeCodeAgentFilesLoad(t *testing.T) {
	d, warns, ok := ParseDefinition("/p/.claude/agents/test-runner.md", []byte(generated))
	if !ok {
		t.Fatalf("skipped: %v", warns)
	}
	if d.Name != "test-runner" || !strings.Contains(d.Description, `assistant: "Let me use the test-runner agent`) || d.Prompt != "You run tests." {
		t.Errorf("definition = %+v", d)
	}
	// Claude Code's names map onto ouro's; what has no equivalent is named once.
	if want := []string{"Bash", "Glob", "Grep", "Read", "Edit", "WebSearch", "TaskOutput"}; !slices.Equal(d.Tools, want) {
		t.Errorf("tools = %v, want %v", d.Tools, want)
	}
	if !slices.Equal(d.DisallowedTools, []string{"Write", "Agent"}) {
		t.Errorf("disallowedTools = %v", d.DisallowedTools)
	}
	if d.Model != "" {
		t.Errorf("an unknown model %q was kept", d.Model)
	}
	text := ""
	for _, w := range warns {
		text += w.Message + "\n"
	}
	for _, want := range []string{
		"tools: not available in ouro: mcp__github__get_issue; unknown: Frobnicate; the agent gets the others",
		`model "fable" is neither an alias`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings lack %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "skipped") {
		t.Errorf("warned about skipping:\n%s", text)
	}
	for _, m := range []string{"sonnet", "inherit", "claude-opus-4-1", "openai:gpt-5"} {
		d, _, _ := ParseDefinition("x.md", []byte("---\nname: a\ndescription: b\nmodel: "+m+"\n---\n"))
		if (m == "inherit") != (d.Model == "") {
			t.Errorf("model %q became %q", m, d.Model)
		}
	}
}

// disallowedTools takes tools away from whatever the definition gives, inherited ones too:
// a "read-only" agent is not offered Edit or Write.
func TestDisallowedToolsAreTakenAway(t *testing.T) {
	parent := tool.NewRegistry()
	for _, n := range []string{"Bash", "Read", "Edit", "Write", "Grep"} {
		_ = parent.Add(&fakeTool{name: n})
	}
	task, _ := NewTool(Config{Tools: parent})
	_ = parent.Add(task)
	d, _, ok := ParseDefinition("r.md", []byte("---\nname: reader\ndescription: reads\ndisallowedTools: [Edit, Write, Task]\n---\n"))
	if !ok {
		t.Fatal("not loaded")
	}
	if got := task.sh.toolNames(d); !slices.Equal(got, []string{"Bash", "Read", "Grep"}) {
		t.Errorf("inherited tools minus disallowed = %v", got)
	}
	d.Tools = []string{"Read", "Edit"}
	if got := task.sh.toolNames(d); !slices.Equal(got, []string{"Read"}) {
		t.Errorf("named tools minus disallowed = %v", got)
	}
}

// An agent's hooks: block reads as settings files' hooks (asyncRewake keeps its case);
// a block in another shape is ignored with a warning, and the agent still loads.
func TestAgentHooksFrontmatter(t *testing.T) {
	d, warns, ok := ParseDefinition("/p/.claude/agents/r.md", []byte(`---
name: r
description: reviews
hooks:
  PostToolUse:
    - matcher: "Edit|Write"
      hooks:
        - type: command
          command: ./lint.sh
          timeout: 30
          asyncRewake: true
  Stop:
    - hooks:
        - {type: command, command: ./check.sh}
---
body`))
	if !ok || len(warns) != 0 {
		t.Fatalf("ok %v warns %v", ok, warns)
	}
	pt := d.Hooks["PostToolUse"]
	if len(pt) != 1 || pt[0].Matcher != "Edit|Write" || pt[0].Hooks[0].Command != "./lint.sh" || pt[0].Hooks[0].Timeout != 30 || !pt[0].Hooks[0].AsyncRewake {
		t.Errorf("PostToolUse hooks %+v", pt)
	}
	if len(d.Hooks["Stop"]) != 1 || d.Hooks["Stop"][0].Hooks[0].Command != "./check.sh" {
		t.Errorf("Stop hooks %+v", d.Hooks["Stop"])
	}
	d, warns, ok = ParseDefinition("/p/.claude/agents/r.md", []byte("---\nname: r\ndescription: reviews\nhooks: [1, 2]\n---\nbody"))
	if !ok || d.Hooks != nil || len(warns) != 1 || !strings.Contains(warns[0].Message, "hooks ignored") {
		t.Errorf("ok %v hooks %v warns %v", ok, d.Hooks, warns)
	}
}

// A parent-only tool (Workflow) reaches no child: not inherited, not by name.
func TestParentOnlyToolsReachNoChild(t *testing.T) {
	parent := tool.NewRegistry()
	for _, n := range []string{"Read", "Workflow"} {
		_ = parent.Add(&fakeTool{name: n})
	}
	task, _ := NewTool(Config{Tools: parent, ParentOnly: []string{"Workflow"}})
	_ = parent.Add(task)
	gp, _ := task.sh.byName[GeneralPurpose]
	if got := task.sh.toolNames(gp); slices.Contains(got, "Workflow") || !slices.Contains(got, "Read") {
		t.Errorf("general-purpose gets %v", got)
	}
	d, _, _ := ParseDefinition("w.md", []byte("---\nname: w\ndescription: wants it\ntools: [Read, Workflow]\n---\n"))
	if got := task.sh.toolNames(d); !slices.Equal(got, []string{"Read"}) {
		t.Errorf("named: %v", got)
	}
}
