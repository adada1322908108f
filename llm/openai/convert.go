package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"

	"github.com/ouroagent/ouro/llm"
)

// imageInToolResult replaces an image a tool returned: Chat Completions tool messages
// carry text only, so the model is told what it is missing instead of silently losing it.
const imageInToolResult = "[the tool returned an image, which the OpenAI Chat Completions API does not support in tool results; it was left out]"

// toolErrorPrefix marks a failed tool call; the wire format has no is_error flag.
const toolErrorPrefix = "Error: "

// buildParams converts an ouro request into Chat Completions parameters (without the
// stream options, which depend on how it is sent).
func buildParams(req *llm.Request, maxTokens int, maxCompletionField bool) (sdk.ChatCompletionNewParams, error) {
	msgs, err := convertMessages(req.System, req.Messages)
	if err != nil {
		return sdk.ChatCompletionNewParams{}, err
	}
	tools, err := convertTools(req.Tools)
	if err != nil {
		return sdk.ChatCompletionNewParams{}, err
	}
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(req.Model), Messages: msgs, Tools: tools}
	if maxCompletionField {
		p.MaxCompletionTokens = sdk.Int(int64(maxTokens))
	} else {
		p.MaxTokens = sdk.Int(int64(maxTokens))
	}
	if e := reasoningEffort(req.Effort); e != "" {
		p.ReasoningEffort = e
	}
	return p, nil
}

// reasoningEffort is the reasoning_effort sent for an ouro effort: low, medium and high
// as they are; xhigh and max, which most OpenAI-compatible servers (vLLM, Ollama,
// llama.cpp, OpenAI's older reasoning models) refuse, as high; "" sends none.
func reasoningEffort(effort string) shared.ReasoningEffort {
	switch effort {
	case "":
		return ""
	case "xhigh", "max":
		return shared.ReasoningEffortHigh
	}
	return shared.ReasoningEffort(effort)
}

// convertMessages maps the Anthropic-shaped conversation onto Chat Completions messages:
// the system prompt first, each tool_result as its own tool message ahead of the rest of
// its user message, and an assistant's text and tool_use blocks as one message with
// tool_calls. Thinking blocks are dropped: the API takes no reasoning back.
func convertMessages(system string, msgs []llm.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	var out []sdk.ChatCompletionMessageParamUnion
	if system != "" {
		out = append(out, sdk.SystemMessage(system))
	}
	for i, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			conv, err := convertUser(m, i)
			if err != nil {
				return nil, err
			}
			out = append(out, conv...)
		case llm.RoleAssistant:
			conv, ok, err := convertAssistant(m, i)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, conv)
			}
		default:
			return nil, fmt.Errorf("message %d: unsupported role %q", i, m.Role)
		}
	}
	return out, nil
}

func convertUser(m llm.Message, i int) ([]sdk.ChatCompletionMessageParamUnion, error) {
	var out []sdk.ChatCompletionMessageParamUnion
	var parts []sdk.ChatCompletionContentPartUnionParam
	var texts []string
	onlyText := true
	for j, b := range m.Content {
		switch b.Type {
		case llm.BlockToolResult:
			out = append(out, sdk.ToolMessage(toolResultText(b), b.ToolUseID))
		case llm.BlockText:
			parts = append(parts, sdk.TextContentPart(b.Text))
			texts = append(texts, b.Text)
		case llm.BlockImage:
			if b.Source == nil || b.Source.Data == "" {
				return nil, fmt.Errorf("message %d block %d: image without data", i, j)
			}
			parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: dataURL(b.Source)}))
			onlyText = false
		case llm.BlockThinking, llm.BlockRedactedThinking:
		default:
			return nil, fmt.Errorf("message %d block %d: a user message cannot carry a %q block", i, j, b.Type)
		}
	}
	switch {
	case len(parts) == 0:
	case onlyText:
		// A plain string is what every compatible server understands.
		out = append(out, sdk.UserMessage(strings.Join(texts, "\n\n")))
	default:
		out = append(out, sdk.UserMessage(parts))
	}
	return out, nil
}

func dataURL(src *llm.ImageSource) string {
	if src.Type == "url" {
		return src.Data
	}
	return "data:" + src.MediaType + ";base64," + src.Data
}

// toolResultText flattens a tool_result to the text a tool message can carry.
func toolResultText(b llm.Block) string {
	var parts []string
	for _, c := range b.Content {
		switch c.Type {
		case llm.BlockText:
			parts = append(parts, c.Text)
		case llm.BlockImage:
			parts = append(parts, imageInToolResult)
		}
	}
	text := strings.Join(parts, "\n")
	if b.IsError {
		return toolErrorPrefix + text
	}
	return text
}

// convertAssistant returns ok=false for a message with nothing the API takes back (only
// thinking): it is left out rather than sent as an empty answer.
func convertAssistant(m llm.Message, i int) (msg sdk.ChatCompletionMessageParamUnion, ok bool, err error) {
	var a sdk.ChatCompletionAssistantMessageParam
	var text strings.Builder
	for j, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			if !isTextCallNote(b.Text) { // ouro's note, not the model's words
				text.WriteString(b.Text)
			}
		case llm.BlockToolUse:
			args := string(b.Input)
			if args == "" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       b.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: args},
				},
			})
		case llm.BlockThinking, llm.BlockRedactedThinking:
		default:
			return msg, false, fmt.Errorf("message %d block %d: an assistant message cannot carry a %q block", i, j, b.Type)
		}
	}
	if text.Len() == 0 && len(a.ToolCalls) == 0 {
		return msg, false, nil
	}
	// Content is left out when there are only tool calls, as the API itself does.
	if text.Len() > 0 {
		a.Content.OfString = sdk.String(text.String())
	}
	return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, true, nil
}

// convertTools declares the tools. Each function definition is sent as JSON built here
// with the tool's schema copied in as declared (whitespace aside), as the Anthropic
// provider does: the SDK's map form of a schema (shared.FunctionParameters) would decode
// every schema into a tree of maps on every request, lose its key order, and turn
// integers above 2^53 into neighbouring floats.
func convertTools(tools []llm.ToolSpec) ([]sdk.ChatCompletionToolUnionParam, error) {
	out := make([]sdk.ChatCompletionToolUnionParam, 0, len(tools))
	for _, t := range tools {
		schema := bytes.TrimSpace(t.InputSchema)
		if len(schema) == 0 {
			schema = []byte(`{"type":"object","properties":{}}`)
		}
		if schema[0] != '{' || !json.Valid(schema) {
			return nil, fmt.Errorf("tool %s: input schema is not a JSON object", t.Name)
		}
		def, err := json.Marshal(functionDef{Name: t.Name, Description: t.Description, Parameters: schema})
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		out = append(out, sdk.ChatCompletionFunctionTool(param.Override[shared.FunctionDefinitionParam](json.RawMessage(def))))
	}
	return out, nil
}

// functionDef is the wire form of shared.FunctionDefinitionParam with a raw schema.
type functionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// toResponse converts the first choice of a completion (whole or accumulated from a
// stream) to an ouro response. Tool call arguments are kept as they came: when the
// answer was cut by the token limit they may not be valid JSON, which the caller sees
// from the max_tokens stop reason.
func toResponse(cc *sdk.ChatCompletion, reasoning string) (*llm.Response, error) {
	if len(cc.Choices) == 0 {
		return nil, fmt.Errorf("the response has no choices")
	}
	ch := cc.Choices[0]
	msg := llm.Message{Role: llm.RoleAssistant}
	if reasoning != "" {
		msg.Content = append(msg.Content, llm.Block{Type: llm.BlockThinking, Thinking: reasoning})
	}
	if ch.Message.Content != "" {
		msg.Content = append(msg.Content, llm.TextBlock(ch.Message.Content))
	}
	if ch.Message.Refusal != "" {
		msg.Content = append(msg.Content, llm.TextBlock(ch.Message.Refusal))
	}
	calls := 0
	for j, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // only function tools are declared
		}
		id := tc.ID
		if id == "" {
			// Some compatible servers leave ids out; the conversation needs one to pair
			// the result with the call.
			id = fmt.Sprintf("call_%s_%d", cc.ID, j)
		}
		args := tc.Function.Arguments
		if args == "" {
			args = "{}"
		}
		msg.Content = append(msg.Content, llm.ToolUseBlock(id, tc.Function.Name, json.RawMessage(args)))
		calls++
	}
	return &llm.Response{
		ID:         cc.ID,
		Model:      cc.Model,
		Message:    msg,
		StopReason: stopReason(ch.FinishReason, calls > 0, ch.Message.Refusal != ""),
		Usage:      toUsage(cc.Usage),
	}, nil
}

// stopReason maps a finish_reason onto ouro's stop reasons. Tool calls win over "stop"
// because several compatible servers report "stop" after a tool call.
func stopReason(finish string, hasCalls, refused bool) string {
	switch {
	case finish == "length":
		return llm.StopMaxTokens
	case finish == "content_filter" || refused:
		return llm.StopRefusal
	case hasCalls:
		return llm.StopToolUse
	default:
		return llm.StopEndTurn
	}
}

// toUsage splits OpenAI's prompt count, which includes cached tokens, into fresh input
// and cache reads.
func toUsage(u sdk.CompletionUsage) llm.Usage {
	cached := int(u.PromptTokensDetails.CachedTokens)
	return llm.Usage{
		InputTokens:          max(int(u.PromptTokens)-cached, 0),
		CacheReadInputTokens: cached,
		OutputTokens:         int(u.CompletionTokens),
	}
}

// reasoningOf reads the reasoning text that DeepSeek, vLLM, llama.cpp and others add to
// a message or delta as reasoning_content (or reasoning), a field OpenAI does not define.
func reasoningOf(extra map[string]respjson.Field) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		var s string
		if raw := extra[key].Raw(); raw != "" && json.Unmarshal([]byte(raw), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
