package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/ouroagent/ouro/llm"
)

// toParams converts a request to the SDK's parameters, with prompt-cache breakpoints on
// the system prompt, the last message and the user message before it. Model, MaxTokens,
// thinking and effort are filled in per attempt (applyThinking), as they depend on the
// model, which a fallback changes.
func toParams(req *llm.Request) (sdk.MessageNewParams, error) {
	var params sdk.MessageNewParams
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	for i, t := range req.Tools {
		tool, err := toolParam(t)
		if err != nil {
			return params, fmt.Errorf("tools.%d (%s): %w", i, t.Name, err)
		}
		params.Tools = append(params.Tools, tool)
	}
	if req.WebSearch != nil {
		params.Tools = append(params.Tools, webSearchTool(req.WebSearch))
	}
	for i, m := range req.Messages {
		blocks := make([]sdk.ContentBlockParamUnion, 0, len(m.Content))
		for j, b := range m.Content {
			if b.Type == llm.BlockThinking && b.Signature == "" && len(m.Content) > 1 {
				// Reasoning another provider gave (an OpenAI-compatible server's
				// reasoning_content, before a /model switch) has no signature, which the
				// API requires of every thinking block it is sent: it is left out.
				continue
			}
			cb, err := blockParam(b)
			if err != nil {
				return params, fmt.Errorf("messages.%d.content.%d: %w", i, j, err)
			}
			blocks = append(blocks, cb)
		}
		switch m.Role {
		case llm.RoleUser:
			params.Messages = append(params.Messages, sdk.NewUserMessage(blocks...))
		case llm.RoleAssistant:
			params.Messages = append(params.Messages, sdk.NewAssistantMessage(blocks...))
		default:
			return params, fmt.Errorf("messages.%d: role must be user or assistant, got %q", i, m.Role)
		}
	}
	markCacheBreakpoints(req.Messages, params.Messages)
	return params, nil
}

// markCacheBreakpoints marks the last block of the last message, so the next turn reads
// the whole conversation from the cache, and the last block of the user message before
// it, which the previous request wrote, so this one hits the cache even while the last
// message is new. With the system prompt that is three of the four breakpoints allowed.
func markCacheBreakpoints(msgs []llm.Message, params []sdk.MessageParam) {
	if len(params) == 0 {
		return
	}
	last := len(params) - 1
	markLastCacheable(params[last])
	for i := last - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			markLastCacheable(params[i])
			return
		}
	}
}

// markLastCacheable sets cache_control on the last block that can carry it (thinking
// blocks cannot).
func markLastCacheable(m sdk.MessageParam) {
	var blocks []sdk.ContentBlockParamUnion
	switch {
	case m.OfUser != nil:
		blocks = m.OfUser.Content
	case m.OfAssistant != nil:
		blocks = m.OfAssistant.Content
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if cc := blocks[i].GetCacheControl(); cc != nil {
			*cc = sdk.NewCacheControlEphemeralParam()
			return
		}
	}
}

// toolCache holds each tool's definition as the SDK encodes it, by name: the 1,000
// agents of a workflow send the same tools in every request, and building and encoding
// them each time was a fifth of ouro's CPU. An entry is used only while the tool's
// description and schema are byte for byte those it was encoded from; a tool that changes
// replaces it.
var toolCache sync.Map // name → *encodedTool

type encodedTool struct {
	description string
	schema      []byte
	param       sdk.ToolUnionParam // encodes as raw, the SDK's own encoding of the tool
}

// toolParam returns t's definition for the SDK, encoded once while t stays the same.
func toolParam(t llm.ToolSpec) (sdk.ToolUnionParam, error) {
	if v, ok := toolCache.Load(t.Name); ok {
		if e := v.(*encodedTool); e.description == t.Description && bytes.Equal(e.schema, t.InputSchema) {
			return e.param, nil
		}
	}
	p, err := buildToolParam(t)
	if err != nil {
		return p, err
	}
	raw, err := p.MarshalJSON()
	if err != nil {
		return p, err
	}
	e := &encodedTool{description: t.Description, schema: bytes.Clone(t.InputSchema),
		param: param.Override[sdk.ToolUnionParam](json.RawMessage(raw))}
	toolCache.Store(t.Name, e)
	return e.param, nil
}

func buildToolParam(t llm.ToolSpec) (sdk.ToolUnionParam, error) {
	schema := bytes.TrimSpace(t.InputSchema)
	if len(schema) == 0 {
		schema = []byte(`{"type":"object","properties":{}}`)
	}
	if !json.Valid(schema) || schema[0] != '{' {
		return sdk.ToolUnionParam{}, fmt.Errorf("input_schema is not a JSON object")
	}
	tool := sdk.ToolParam{
		Name: t.Name,
		// The schema is sent exactly as the tool declares it.
		InputSchema: param.Override[sdk.ToolInputSchemaParam](json.RawMessage(schema)),
	}
	if t.Description != "" {
		tool.Description = sdk.String(t.Description)
	}
	return sdk.ToolUnionParam{OfTool: &tool}, nil
}

func blockParam(b llm.Block) (sdk.ContentBlockParamUnion, error) {
	switch b.Type {
	case llm.BlockText:
		return sdk.NewTextBlock(b.Text), nil
	case llm.BlockToolUse:
		input := bytes.TrimSpace(b.Input)
		if len(input) == 0 {
			input = []byte(`{}`)
		}
		if !json.Valid(input) {
			return sdk.ContentBlockParamUnion{}, fmt.Errorf("tool_use %s input is not valid JSON (a call cut off by max_tokens cannot be sent back)", b.ID)
		}
		return sdk.NewToolUseBlock(b.ID, json.RawMessage(input), b.Name), nil
	case llm.BlockToolResult:
		tr := sdk.ToolResultBlockParam{ToolUseID: b.ToolUseID}
		if b.IsError {
			tr.IsError = sdk.Bool(true)
		}
		for k, c := range b.Content {
			switch c.Type {
			case llm.BlockText:
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: c.Text}})
			case llm.BlockImage:
				img, err := imageParam(c)
				if err != nil {
					return sdk.ContentBlockParamUnion{}, fmt.Errorf("tool_result content.%d: %w", k, err)
				}
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfImage: &img})
			default:
				return sdk.ContentBlockParamUnion{}, fmt.Errorf("tool_result content.%d: a tool result holds text and images, not %q", k, c.Type)
			}
		}
		return sdk.ContentBlockParamUnion{OfToolResult: &tr}, nil
	case llm.BlockThinking:
		return sdk.NewThinkingBlock(b.Signature, b.Thinking), nil
	case llm.BlockRedactedThinking:
		return sdk.NewRedactedThinkingBlock(b.Data), nil
	case llm.BlockImage:
		img, err := imageParam(b)
		if err != nil {
			return sdk.ContentBlockParamUnion{}, err
		}
		return sdk.ContentBlockParamUnion{OfImage: &img}, nil
	case llm.BlockServerToolUse, llm.BlockWebSearchResult:
		return serverBlockParam(b)
	default:
		return sdk.ContentBlockParamUnion{}, fmt.Errorf("unknown block type %q", b.Type)
	}
}

func imageParam(b llm.Block) (sdk.ImageBlockParam, error) {
	if b.Source == nil || b.Source.Data == "" || b.Source.MediaType == "" {
		return sdk.ImageBlockParam{}, fmt.Errorf("image needs a base64 source with media_type and data")
	}
	if b.Source.Type != "" && b.Source.Type != "base64" {
		return sdk.ImageBlockParam{}, fmt.Errorf("image source type %q is not supported (only base64)", b.Source.Type)
	}
	return sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{
		OfBase64: &sdk.Base64ImageSourceParam{Data: b.Source.Data, MediaType: sdk.Base64ImageSourceMediaType(b.Source.MediaType)},
	}}, nil
}

// toResponse converts the SDK's message. Blocks ouro does not model (server tools other
// than web search, which ouro never declares) are left out.
func toResponse(m *sdk.Message, requested string) *llm.Response {
	out := llm.Message{Role: llm.RoleAssistant}
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			out.Content = append(out.Content, llm.TextBlock(b.Text))
		case llm.BlockToolUse:
			input := b.Input
			if len(bytes.TrimSpace(input)) == 0 {
				input = json.RawMessage(`{}`)
			}
			out.Content = append(out.Content, llm.ToolUseBlock(b.ID, b.Name, append(json.RawMessage(nil), input...)))
		case llm.BlockThinking:
			out.Content = append(out.Content, llm.Block{Type: llm.BlockThinking, Thinking: b.Thinking, Signature: b.Signature})
		case llm.BlockRedactedThinking:
			out.Content = append(out.Content, llm.Block{Type: llm.BlockRedactedThinking, Data: b.Data})
		default:
			if sb, ok := serverBlock(b); ok {
				out.Content = append(out.Content, sb)
			}
		}
	}
	model := string(m.Model)
	if model == "" {
		model = requested
	}
	return &llm.Response{
		ID:         m.ID,
		Model:      model,
		Message:    out,
		StopReason: string(m.StopReason),
		Usage: llm.Usage{
			InputTokens:              int(m.Usage.InputTokens),
			OutputTokens:             int(m.Usage.OutputTokens),
			CacheCreationInputTokens: int(m.Usage.CacheCreationInputTokens),
			CacheReadInputTokens:     int(m.Usage.CacheReadInputTokens),
			ServerToolUse:            llm.ServerToolUse{WebSearchRequests: int(m.Usage.ServerToolUse.WebSearchRequests)},
		},
	}
}
