package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/ouroagent/ouro/llm"
)

// The web search server tool (llm.WebSearch): its definition in a request, and its
// server_tool_use and web_search_tool_result blocks both ways, on the SDK's types.

// webSearchTool is the web_search_20250305 tool a request with WebSearch set declares.
func webSearchTool(ws *llm.WebSearch) sdk.ToolUnionParam {
	t := sdk.WebSearchTool20250305Param{AllowedDomains: ws.AllowedDomains, BlockedDomains: ws.BlockedDomains}
	if ws.MaxUses > 0 {
		t.MaxUses = sdk.Int(int64(ws.MaxUses))
	}
	return sdk.ToolUnionParam{OfWebSearchTool20250305: &t}
}

// serverBlockParam sends back a server_tool_use or web_search_tool_result block as it came.
func serverBlockParam(b llm.Block) (sdk.ContentBlockParamUnion, error) {
	if b.Type == llm.BlockServerToolUse {
		input := bytes.TrimSpace(b.Input)
		if len(input) == 0 {
			input = []byte(`{}`)
		}
		if !json.Valid(input) {
			return sdk.ContentBlockParamUnion{}, fmt.Errorf("server_tool_use %s input is not valid JSON", b.ID)
		}
		return sdk.NewServerToolUseBlock(b.ID, json.RawMessage(input), sdk.ServerToolUseBlockParamName(b.Name)), nil
	}
	if len(b.Content) == 1 && b.Content[0].Type == llm.BlockWebSearchError {
		return sdk.NewWebSearchToolResultBlock(sdk.WebSearchToolRequestErrorObjectParam{
			ErrorCode: sdk.WebSearchToolResultErrorCode(b.Content[0].ErrorCode)}, b.ToolUseID), nil
	}
	hits := make([]sdk.WebSearchResultBlockParam, 0, len(b.Content))
	for k, c := range b.Content {
		if c.Type != llm.BlockWebSearchHit {
			return sdk.ContentBlockParamUnion{}, fmt.Errorf("web_search_tool_result content.%d: holds web_search_result blocks or one error, not %q", k, c.Type)
		}
		h := sdk.WebSearchResultBlockParam{URL: c.URL, Title: c.Title, EncryptedContent: c.EncryptedContent}
		if c.PageAge != "" {
			h.PageAge = sdk.String(c.PageAge)
		}
		hits = append(hits, h)
	}
	return sdk.NewWebSearchToolResultBlock(hits, b.ToolUseID), nil
}

// serverBlock converts a server_tool_use or web_search_tool_result block of an answer;
// ok is false for any other type.
func serverBlock(b sdk.ContentBlockUnion) (out llm.Block, ok bool) {
	switch b.Type {
	case llm.BlockServerToolUse:
		input := b.Input
		if len(bytes.TrimSpace(input)) == 0 {
			input = json.RawMessage(`{}`)
		}
		return llm.Block{Type: llm.BlockServerToolUse, ID: b.ID, Name: b.Name, Input: append(json.RawMessage(nil), input...)}, true
	case llm.BlockWebSearchResult:
		r := b.AsWebSearchToolResult()
		out = llm.Block{Type: llm.BlockWebSearchResult, ToolUseID: r.ToolUseID}
		if r.Content.JSON.ErrorCode.Valid() || r.Content.Type == llm.BlockWebSearchError {
			out.Content = []llm.Block{{Type: llm.BlockWebSearchError, ErrorCode: string(r.Content.ErrorCode)}}
			return out, true
		}
		for _, h := range r.Content.AsWebSearchResultBlockArray() {
			out.Content = append(out.Content, llm.Block{Type: llm.BlockWebSearchHit, URL: h.URL, Title: h.Title,
				PageAge: h.PageAge, EncryptedContent: h.EncryptedContent})
		}
		return out, true
	}
	return llm.Block{}, false
}
