package frontmatter

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/ouroagent/ouro/settings"
)

type agent struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Tools       yaml.Node `yaml:"tools"`
	Model       string    `yaml:"model"`
	MaxTurns    int       `yaml:"maxTurns"`
}

func tools(t *testing.T, n yaml.Node) any {
	t.Helper()
	var v any
	if n.Kind == 0 {
		return nil
	}
	if err := n.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, head string
		loose      bool
		want       agent
		tools      any
	}{
		{"strict", "name: a\ndescription: plain\ntools: Read, Grep\nmaxTurns: 3\n", false,
			agent{Name: "a", Description: "plain", MaxTurns: 3}, "Read, Grep"},
		// What Claude Code's /agents generator writes: colons inside one long line.
		{"generated description", "name: code-reviewer\ndescription: Use this agent after writing code. Examples: <example>Context: the user wrote a function. user: \"review it\" assistant: \"I'll use the code-reviewer agent\"</example>\ntools: Glob, Grep, Read\nmodel: sonnet\n", true,
			agent{Name: "code-reviewer", Description: `Use this agent after writing code. Examples: <example>Context: the user wrote a function. user: "review it" assistant: "I'll use the code-reviewer agent"</example>`, Model: "sonnet"}, "Glob, Grep, Read"},
		{"continuation and list", "name: b\ndescription: first: part\n  second part\ntools:\n  - Read\n  - Bash(git *)\n", true,
			agent{Name: "b", Description: "first: part second part"}, []any{"Read", "Bash(git *)"}},
		{"flow list", "name: c\ndescription: x: y\ntools: [Read, 'Grep']\n", true,
			agent{Name: "c", Description: "x: y"}, []any{"Read", "Grep"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got agent
			loose, _, err := Decode([]byte(tc.head), &got)
			if err != nil || loose != tc.loose {
				t.Fatalf("loose=%v err=%v", loose, err)
			}
			tl := tools(t, got.Tools)
			got.Tools = yaml.Node{}
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(tl, tc.tools) {
				t.Errorf("got %+v tools %#v", got, tl)
			}
		})
	}
	var a agent
	if _, _, err := Decode([]byte("name: x\n  indented: [oops\n: nothing\n"), &a); err == nil {
		t.Error("a header neither reading accepts was accepted")
	}
}

// A header whose description breaks YAML (as the /agents generator writes it) keeps the
// structure of its other keys: a hooks: block is still a map of events.
func TestLooseKeepsNestedBlocks(t *testing.T) {
	head := []byte("name: reviewer\ndescription: Use this agent to review. Examples: user: \"Review\" assistant: \"ok\"\ntools: Read, Grep\nhooks:\n  PreToolUse:\n    - matcher: \"Read\"\n      hooks:\n        - type: command\n          command: \"echo hi\"\n")
	var v struct {
		Description string    `yaml:"description"`
		Tools       string    `yaml:"tools"`
		Hooks       yaml.Node `yaml:"hooks"`
	}
	loose, _, err := Decode(head, &v)
	if err != nil || !loose {
		t.Fatalf("loose %v, err %v", loose, err)
	}
	if v.Tools != "Read, Grep" || v.Description != `Use this agent to review. Examples: user: "Review" assistant: "ok"` {
		t.Fatalf("%+v", v)
	}
	h, err := settings.HooksFromYAML(&v.Hooks)
	if err != nil || len(h["PreToolUse"]) != 1 || h["PreToolUse"][0].Matcher != "Read" || h["PreToolUse"][0].Hooks[0].Command != "echo hi" {
		t.Fatalf("hooks = %+v, %v", h, err)
	}
}

// Claude Code reads a value that only begins like a flow collection as text: real commands
// write hints such as "[analyze|srs|all] <source_path> [--force]", which strict YAML
// refuses, and the header must still load, every other key intact.
func TestValueThatOnlyLooksLikeAListIsText(t *testing.T) {
	type command struct {
		Description  string    `yaml:"description"`
		ArgumentHint string    `yaml:"argument-hint"`
		AllowedTools yaml.Node `yaml:"allowed-tools"`
	}
	for hint, want := range map[string]string{
		"[analyze|srs|design|all] <source_path> [--output <path>] [--force]": "[analyze|srs|design|all] <source_path> [--output <path>] [--force]",
		"[pr-number] | [branch]": "[pr-number] | [branch]",
		"[x] | y":                "[x] | y",
		"{name} [--dry-run]":     "{name} [--dry-run]",
	} {
		var c command
		loose, strictErr, err := Decode([]byte("description: Generate docs\nargument-hint: "+hint+"\nallowed-tools: [Read, Grep]\n"), &c)
		if err != nil || !loose || strictErr == nil {
			t.Fatalf("%q: loose %v, strict error %v, error %v", hint, loose, strictErr, err)
		}
		if c.ArgumentHint != want || c.Description != "Generate docs" || tools(t, c.AllowedTools) == nil {
			t.Errorf("%q: %+v", hint, c)
		}
		if got, _ := tools(t, c.AllowedTools).([]any); len(got) != 2 {
			t.Errorf("%q: the flow list beside it is no longer a list: %v", hint, tools(t, c.AllowedTools))
		}
	}
}

func TestAFlowCollectionLeftOpenIsStillAnError(t *testing.T) {
	var v struct {
		Hint string `yaml:"argument-hint"`
	}
	for _, head := range []string{"argument-hint: [oops\n", "argument-hint: [a} b\n", "argument-hint: {x] y\n"} {
		if _, _, err := Decode([]byte(head), &v); err == nil {
			t.Errorf("%q read as %+v", head, v)
		}
	}
}
