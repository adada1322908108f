// Package llm holds the provider-neutral conversation model ouro speaks: Anthropic-shaped
// messages and content blocks, tool specifications, requests, responses, usage and cost,
// and the Provider interface every model backend implements.
package llm

import (
	"encoding/json"
	"strings"
)

// Role of a message in the conversation.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Block types, spelled as on the Anthropic wire.
const (
	BlockText             = "text"
	BlockToolUse          = "tool_use"
	BlockToolResult       = "tool_result"
	BlockThinking         = "thinking"
	BlockRedactedThinking = "redacted_thinking"
	BlockImage            = "image"
)

// Block is one content block. Which fields are set depends on Type; the JSON form is the
// Anthropic Messages form, so transcripts and stream-json events can carry it unchanged.
type Block struct {
	Type string `json:"type"`

	// text
	Text string `json:"text,omitempty"`

	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	// tool_result
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   []Block `json:"content,omitempty"`
	IsError   bool    `json:"is_error,omitempty"`

	// thinking / redacted_thinking
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`

	// image
	Source *ImageSource `json:"source,omitempty"`

	// server_tool_use has ID, Name and Input; web_search_tool_result has ToolUseID and
	// Content: web_search_result blocks, or one web_search_tool_result_error (websearch.go).
	URL              string `json:"url,omitempty"`
	Title            string `json:"title,omitempty"`
	PageAge          string `json:"page_age,omitempty"`
	EncryptedContent string `json:"encrypted_content,omitempty"`
	ErrorCode        string `json:"error_code,omitempty"`
}

// ImageSource is an inline base64 image.
type ImageSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Type: BlockText, Text: s} }

// ToolUseBlock returns a tool_use block.
func ToolUseBlock(id, name string, input json.RawMessage) Block {
	return Block{Type: BlockToolUse, ID: id, Name: name, Input: input}
}

// ToolResultBlock returns a tool_result block carrying text.
func ToolResultBlock(toolUseID, text string, isError bool) Block {
	b := Block{Type: BlockToolResult, ToolUseID: toolUseID, IsError: isError}
	b.Content = []Block{TextBlock(text)}
	return b
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// UserText returns a user message with one text block.
func UserText(s string) Message { return Message{Role: RoleUser, Content: []Block{TextBlock(s)}} }

// Text concatenates the message's text blocks.
func (m Message) Text() string {
	var sb strings.Builder
	for _, b := range m.Content {
		if b.Type == BlockText {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

// ToolUses returns the message's tool_use blocks in order.
func (m Message) ToolUses() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

// ResultText concatenates the text inside a tool_result block.
func (b Block) ResultText() string {
	var sb strings.Builder
	for _, c := range b.Content {
		if c.Type == BlockText {
			sb.WriteString(c.Text)
		}
	}
	return sb.String()
}

// ToolSpec declares a tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}
