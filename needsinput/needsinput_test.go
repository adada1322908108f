package needsinput

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
)

func TestQuestion(t *testing.T) {
	for _, c := range []struct {
		text   string
		worked bool
		want   string // "" for no question
	}{
		{"Which database should the service use: Postgres or SQLite?", false, "Which database should the service use: Postgres or SQLite?"},
		{"Which database should the service use: Postgres or SQLite?", true, "Which database should the service use: Postgres or SQLite?"},
		{"I looked at the repo.\n\nBefore I change anything: should the parser accept `1h30m` or only `90m`?", true, "Before I change anything: should the parser accept `1h30m` or only `90m`?"},
		{"I need one thing from you:\n\nWhich of these should I keep?\n\n1. the old API\n2. the new one", true, "Which of these should I keep?\n\n1. the old API\n2. the new one"},
		{"**Which environment do you deploy to?**", false, "**Which environment do you deploy to?**"},
		{"你希望我用哪个数据库？", false, "你希望我用哪个数据库？"},
		{"Would you like me to write the function?", false, "Would you like me to write the function?"},
		// Answers that finished their task.
		{"Fixed the parser; all tests pass.", true, ""},
		{"Fixed the parser; all tests pass.\n\nWould you like me to add tests for the edge cases too?", true, ""},
		{"Done. Let me know if you want the docs updated as well?", true, ""},
		{"The tests pass now. Shall I also open a pull request?", true, ""},
		{"Done.\n\nIs there anything else?", true, ""},
		// A question inside the answer, not at its end, does not count; nor one in code.
		{"Why did it fail? The cache was stale. I cleared it and the build passes.", true, ""},
		{"Here is the check:\n\n```go\nif ok := x?; ok {}\n```", false, ""},
		{"Here is the script:\n\n```sh\necho 'continue?'\n```", true, ""},
		{"", false, ""},
	} {
		got, ok := Question(c.text, c.worked)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("Question(%q, worked=%v) = %q, %v; want %q", c.text, c.worked, got, ok, c.want)
		}
	}
}

func TestJoinOnlyWhenHeadless(t *testing.T) {
	p, err := Join(mechanism.Env{}, JoinConfig{})
	if err != nil || len(p.BeforeStop) != 0 {
		t.Fatalf("an interactive session got a stop check: %+v %v", p, err)
	}
	p, _ = Join(mechanism.Env{}, JoinConfig{Headless: true})
	if len(p.BeforeStop) != 1 || p.Phase != mechanism.PhaseGoal {
		t.Fatalf("headless part: %+v", p)
	}
	conv := &agent.Conversation{Messages: []llm.Message{
		llm.UserText("add a cache"),
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "1", Name: "Read", Input: json.RawMessage(`{}`)}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "1"}}},
	}}
	final := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("Should the cache be per user or global?")}}
	d := p.BeforeStop[0].BeforeStop(context.Background(), &agent.Stop{Conv: conv, Final: final})
	if d.End != agent.StatusNeedsInput || d.Question != "Should the cache be per user or global?" || !strings.Contains(d.Reason, "asks the user a question") {
		t.Fatalf("decision %+v", d)
	}
	// The work before an earlier prompt does not make this turn's offer a finished task.
	conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("ok")}}, llm.UserText("and now?"))
	final = llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("Would you like me to start?")}}
	if d := p.BeforeStop[0].BeforeStop(context.Background(), &agent.Stop{Conv: conv, Final: final}); d.End != agent.StatusNeedsInput {
		t.Fatalf("an offer with no work this turn: %+v", d)
	}
}

// A small model that answers with code and no tool call is sent back once per prompt to
// make the change with the tools; a large model's session, or a second such answer, ends.
func TestSmallModelCodeAnswerIsSentBackOnce(t *testing.T) {
	code := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("Here is the fix:\n\n```python\ndef f():\n    return 1\n```\nIt should work now.")}}
	conv := &agent.Conversation{Messages: []llm.Message{llm.UserText("fix f")}}
	p, _ := Join(mechanism.Env{}, JoinConfig{Headless: true, SmallModel: true})
	d := p.BeforeStop[0].BeforeStop(context.Background(), &agent.Stop{Conv: conv, Final: code})
	if !d.Continue || !strings.Contains(d.Message, "call the Read tool") {
		t.Fatalf("first code-only answer: %+v", d)
	}
	conv.Messages = append(conv.Messages, code, llm.UserText(d.Message))
	if d := p.BeforeStop[0].BeforeStop(context.Background(), &agent.Stop{Conv: conv, Final: code}); d.Continue || d.End != "" {
		t.Fatalf("second code-only answer of the same prompt: %+v", d)
	}
	// A new prompt may be sent back again.
	conv.Messages = append(conv.Messages, code, llm.UserText("and g"))
	if d := p.BeforeStop[0].BeforeStop(context.Background(), &agent.Stop{Conv: conv, Final: code}); !d.Continue {
		t.Fatalf("a new prompt's code-only answer: %+v", d)
	}
	// Work done, or no code, or a model with a large window: no nudge.
	worked := &agent.Conversation{Messages: []llm.Message{llm.UserText("fix f"),
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "1", Name: "Edit", Input: json.RawMessage(`{}`)}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "1"}}}}}
	p2, _ := Join(mechanism.Env{}, JoinConfig{Headless: true, SmallModel: true})
	if d := p2.BeforeStop[0].BeforeStop(context.Background(), &agent.Stop{Conv: worked, Final: code}); d.Continue {
		t.Fatal("sent back after work")
	}
	plain := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("Done: f returns 1 now.")}}
	if d := p2.BeforeStop[0].BeforeStop(context.Background(), &agent.Stop{Conv: &agent.Conversation{Messages: []llm.Message{llm.UserText("x")}}, Final: plain}); d.Continue {
		t.Fatal("sent back without code")
	}
	big, _ := Join(mechanism.Env{}, JoinConfig{Headless: true})
	if d := big.BeforeStop[0].BeforeStop(context.Background(), &agent.Stop{Conv: &agent.Conversation{Messages: []llm.Message{llm.UserText("x")}}, Final: code}); d.Continue {
		t.Fatal("a large model was sent back")
	}
}
