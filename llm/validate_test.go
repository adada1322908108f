package llm_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

func user(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: blocks}
}

func assistant(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: blocks}
}

func text(s string) llm.Block { return llm.TextBlock(s) }

func use(id string) llm.Block {
	return llm.ToolUseBlock(id, "Bash", json.RawMessage(`{"command":"ls"}`))
}

func result(id string) llm.Block { return llm.ToolResultBlock(id, "ok", false) }

func TestValidateConversationAccepts(t *testing.T) {
	tests := []struct {
		name string
		msgs []llm.Message
	}{
		{"one user message", []llm.Message{llm.UserText("hi")}},
		{"plain exchange", []llm.Message{llm.UserText("hi"), assistant(text("hello")), llm.UserText("bye")}},
		{"ends with an assistant text (prefill)", []llm.Message{llm.UserText("hi"), assistant(text("hel"))}},
		{"one tool round trip", []llm.Message{
			llm.UserText("list"),
			assistant(text("looking"), use("a")),
			user(result("a")),
			assistant(text("done")),
		}},
		{"parallel calls answered out of order, with text after", []llm.Message{
			llm.UserText("list"),
			assistant(use("a"), use("b"), use("c")),
			user(result("c"), result("a"), result("b"), text("also this")),
		}},
		{"error results count as answers", []llm.Message{
			llm.UserText("go"),
			assistant(use("a")),
			user(llm.ToolResultBlock("a", "boom", true)),
		}},
		{"several rounds", []llm.Message{
			llm.UserText("go"),
			assistant(use("a")),
			user(result("a")),
			assistant(use("b")),
			user(result("b")),
			assistant(text("done")),
		}},
		{"thinking, redacted thinking and images", []llm.Message{
			user(text("look"), llm.Block{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}}),
			assistant(llm.Block{Type: llm.BlockThinking, Thinking: "hmm", Signature: "s"}, llm.Block{Type: llm.BlockRedactedThinking, Data: "x"}, use("a")),
			user(result("a")),
		}},
		{"tool input may be any JSON value", []llm.Message{
			llm.UserText("go"),
			assistant(llm.ToolUseBlock("a", "Bash", json.RawMessage(`[1, 2]`))),
			user(result("a")),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := llm.ValidateConversation(tt.msgs); err != nil {
				t.Errorf("ValidateConversation = %v, want nil", err)
			}
		})
	}
}

func TestValidateConversationRejects(t *testing.T) {
	tests := []struct {
		name string
		msgs []llm.Message
		want string // the error must contain this
	}{
		{"no messages", nil, "messages: at least one message is required"},
		{"first message from the assistant",
			[]llm.Message{assistant(text("hi")), llm.UserText("hi")},
			`messages.0: the first message must use the user role, got "assistant"`},
		{"first message with an unknown role",
			[]llm.Message{{Role: "system", Content: []llm.Block{text("be nice")}}},
			`messages.0: the first message must use the user role, got "system"`},
		{"later message with an unknown role",
			[]llm.Message{llm.UserText("hi"), assistant(text("hello")), {Role: "tool", Content: []llm.Block{text("x")}}},
			`messages.2: role must be user or assistant, got "tool"`},
		{"empty content",
			[]llm.Message{llm.UserText("hi"), assistant()},
			"messages.1: content must not be empty"},
		{"empty first message",
			[]llm.Message{user()},
			"messages.0: content must not be empty"},
		{"empty text block",
			[]llm.Message{user(text("hi"), text(""))},
			"messages.0.content.1: text content blocks must be non-empty"},
		{"empty assistant text block",
			[]llm.Message{llm.UserText("hi"), assistant(text(""))},
			"messages.1.content.0: text content blocks must be non-empty"},
		{"tool_use in a user message",
			[]llm.Message{user(text("hi"), use("a"))},
			"messages.0.content.1: tool_use is only allowed in assistant messages"},
		{"tool_use without an id",
			[]llm.Message{llm.UserText("hi"), assistant(llm.ToolUseBlock("", "Bash", json.RawMessage(`{}`)))},
			"messages.1.content.0: tool_use needs an id and a name"},
		{"tool_use without a name",
			[]llm.Message{llm.UserText("hi"), assistant(llm.ToolUseBlock("a", "", json.RawMessage(`{}`)))},
			"messages.1.content.0: tool_use needs an id and a name"},
		{"duplicate tool_use ids in one message",
			[]llm.Message{llm.UserText("hi"), assistant(use("a"), use("a"))},
			`messages.1.content.1: tool_use id "a" is used twice`},
		{"tool_use id reused in a later turn",
			[]llm.Message{llm.UserText("hi"), assistant(use("a")), user(result("a")), assistant(text("more"), use("a"))},
			`messages.3.content.1: tool_use id "a" is used twice`},
		{"tool input that is not JSON",
			[]llm.Message{llm.UserText("hi"), assistant(llm.ToolUseBlock("a", "Bash", json.RawMessage(`{"command": "ls`)))},
			`messages.1.content.0: tool_use "a" input is not valid JSON`},
		{"tool input missing",
			[]llm.Message{llm.UserText("hi"), assistant(llm.ToolUseBlock("a", "Bash", nil))},
			`messages.1.content.0: tool_use "a" input is not valid JSON`},
		{"tool_result in an assistant message",
			[]llm.Message{llm.UserText("hi"), assistant(use("a")), user(result("a")), assistant(result("a"))},
			"messages.3.content.0: tool_result is only allowed in user messages"},
		{"unanswered call",
			[]llm.Message{llm.UserText("hi"), assistant(use("a")), llm.UserText("never mind")},
			"messages.2: tool_use ids were found without tool_result blocks immediately after: a"},
		{"partial batch",
			[]llm.Message{llm.UserText("hi"), assistant(use("a"), use("b"), use("c")), user(result("a"), result("c"))},
			"messages.2: tool_use ids were found without tool_result blocks immediately after: b"},
		{"call followed by another assistant message",
			[]llm.Message{llm.UserText("hi"), assistant(use("a")), assistant(text("hm"))},
			"messages.2: tool_use ids were found without tool_result blocks immediately after: a"},
		{"result answering no call at all",
			[]llm.Message{llm.UserText("hi"), user(result("ghost"))},
			`messages.1.content.0: unexpected tool_use_id "ghost" in tool_result`},
		{"result answering an id the previous message did not use",
			[]llm.Message{llm.UserText("hi"), assistant(use("a")), user(result("a"), result("b"))},
			`messages.2.content.1: unexpected tool_use_id "b" in tool_result`},
		{"result answering a call from an earlier turn",
			[]llm.Message{llm.UserText("hi"), assistant(use("a")), user(result("a")), assistant(text("ok")), user(result("a"))},
			`messages.4.content.0: unexpected tool_use_id "a" in tool_result`},
		{"result in the first message",
			[]llm.Message{user(result("a"))},
			`messages.0.content.0: unexpected tool_use_id "a" in tool_result`},
		{"call answered twice",
			[]llm.Message{llm.UserText("hi"), assistant(use("a"), use("b")), user(result("a"), result("b"), result("a"))},
			`messages.2.content.2: tool_use_id "a" is answered twice`},
		{"trailing tool_use",
			[]llm.Message{llm.UserText("hi"), assistant(text("let me see"), use("a"))},
			"messages.1: the conversation ends with a tool_use that has no tool_result"},
		{"trailing tool_use after a round trip",
			[]llm.Message{llm.UserText("hi"), assistant(use("a")), user(result("a")), assistant(use("b"))},
			"messages.3: the conversation ends with a tool_use that has no tool_result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := llm.ValidateConversation(tt.msgs)
			if err == nil {
				t.Fatalf("ValidateConversation = nil, want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ValidateConversation = %q\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

// ValidateConversation only reads the conversation.
func TestValidateConversationDoesNotModify(t *testing.T) {
	msgs := []llm.Message{llm.UserText("hi"), assistant(use("a"), use("b")), user(result("b"), result("a"))}
	before, _ := json.Marshal(msgs)
	if err := llm.ValidateConversation(msgs); err != nil {
		t.Fatal(err)
	}
	after, _ := json.Marshal(msgs)
	if string(before) != string(after) {
		t.Errorf("the conversation changed:\n%s\n%s", before, after)
	}
}
