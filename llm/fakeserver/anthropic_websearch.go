package fakeserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/ouroagent/ouro/llm"
)

// Anthropic's web search server tool, as the fake server plays it: a request declaring
// {"type":"web_search_20250305", ...} gets the script turn's searches (scripted.SearchCall)
// as server_tool_use and web_search_tool_result blocks, results filtered by the request's
// domain lists, and its text citing the results, in the real API's wire format.

// webSearchToolType is the version of the tool the fake server knows.
const webSearchToolType = "web_search_20250305"

// webSearchOf reads the request's web search tool, if it declares one.
func webSearchOf(tools []anthropicTool) (*llm.WebSearch, *anthropicAPIError) {
	for i, t := range tools {
		if !strings.HasPrefix(t.Type, "web_search_") {
			continue
		}
		if t.Type != webSearchToolType || t.Name != "web_search" {
			return nil, anthropicInvalid("tools.%d: the fake server knows the web search tool as {\"type\":%q,\"name\":\"web_search\"}, not %q named %q", i, webSearchToolType, t.Type, t.Name)
		}
		if len(t.AllowedDomains) > 0 && len(t.BlockedDomains) > 0 {
			return nil, anthropicInvalid("tools.%d.%s: allowed_domains and blocked_domains cannot be used together", i, webSearchToolType)
		}
		ws := &llm.WebSearch{AllowedDomains: t.AllowedDomains, BlockedDomains: t.BlockedDomains}
		if t.MaxUses != nil {
			if *t.MaxUses < 1 {
				return nil, anthropicInvalid("tools.%d.%s.max_uses: Input should be greater than 0", i, webSearchToolType)
			}
			ws.MaxUses = *t.MaxUses
		}
		return ws, nil
	}
	return nil, nil
}

// invalidSearchDomains reports whether a domain list holds an entry the API refuses; the
// searches are then answered invalid_tool_input.
func invalidSearchDomains(ws *llm.WebSearch) bool {
	for _, d := range append(append([]string(nil), ws.AllowedDomains...), ws.BlockedDomains...) {
		if llm.CheckSearchDomain(d) != nil {
			return true
		}
	}
	return false
}

// refuseSearches answers every search of msg with invalid_tool_input.
func refuseSearches(msg llm.Message) llm.Message {
	out := llm.Message{Role: msg.Role}
	for _, b := range msg.Content {
		if b.Type == llm.BlockWebSearchResult {
			b.Content = []llm.Block{{Type: llm.BlockWebSearchError, ErrorCode: "invalid_tool_input"}}
		}
		out.Content = append(out.Content, b)
	}
	return out
}

// searchCount is how many searches msg makes, for usage.server_tool_use.
func searchCount(msg llm.Message) int {
	n := 0
	for _, b := range msg.Content {
		if b.Type == llm.BlockServerToolUse {
			n++
		}
	}
	return n
}

// webSearchResultWire is a web_search_tool_result block as the API sends it: content is
// a list of results, or one error object.
func webSearchResultWire(b llm.Block) map[string]any {
	var content any
	if len(b.Content) == 1 && b.Content[0].Type == llm.BlockWebSearchError {
		content = map[string]any{"type": llm.BlockWebSearchError, "error_code": b.Content[0].ErrorCode}
	} else {
		hits := []any{}
		for _, h := range b.Content {
			hits = append(hits, map[string]any{"type": llm.BlockWebSearchHit, "url": h.URL, "title": h.Title,
				"encrypted_content": h.EncryptedContent, "page_age": h.PageAge})
		}
		content = hits
	}
	return map[string]any{"type": llm.BlockWebSearchResult, "tool_use_id": b.ToolUseID, "content": content}
}

// citationOf is the citation a text block after a search carries: the first result of
// the last search before it, citing the start of the text. nil when there is none.
func citationOf(last *llm.Block, text string) map[string]any {
	if last == nil || len(last.Content) == 0 || last.Content[0].Type != llm.BlockWebSearchHit {
		return nil
	}
	h := last.Content[0]
	cited := text
	if r := []rune(cited); len(r) > 150 {
		cited = string(r[:150])
	}
	return map[string]any{"type": "web_search_result_location", "url": h.URL, "title": h.Title,
		"encrypted_index": base64.StdEncoding.EncodeToString([]byte("index:" + h.URL)), "cited_text": cited}
}

// decodeServerBlock reads a server_tool_use or web_search_tool_result block a client sends
// back (a continued turn).
func decodeServerBlock(wb anthropicBlock, path string) (llm.Block, *anthropicAPIError) {
	if wb.Type == llm.BlockServerToolUse {
		if wb.ID == "" || wb.Name == "" {
			return llm.Block{}, anthropicInvalid("%s: server_tool_use needs an id and a name", path)
		}
		return llm.Block{Type: llm.BlockServerToolUse, ID: wb.ID, Name: wb.Name, Input: wb.Input}, nil
	}
	b := llm.Block{Type: llm.BlockWebSearchResult, ToolUseID: wb.ToolUseID}
	raw := bytes.TrimSpace(wb.Content)
	if len(raw) > 0 && raw[0] == '{' {
		var e struct {
			Type      string `json:"type"`
			ErrorCode string `json:"error_code"`
		}
		if err := json.Unmarshal(raw, &e); err != nil || e.Type != llm.BlockWebSearchError || e.ErrorCode == "" {
			return llm.Block{}, anthropicInvalid("%s.content: a web_search_tool_result holds results or a web_search_tool_result_error", path)
		}
		b.Content = []llm.Block{{Type: llm.BlockWebSearchError, ErrorCode: e.ErrorCode}}
		return b, nil
	}
	var hits []struct {
		Type             string `json:"type"`
		URL              string `json:"url"`
		Title            string `json:"title"`
		EncryptedContent string `json:"encrypted_content"`
		PageAge          string `json:"page_age"`
	}
	if err := json.Unmarshal(raw, &hits); err != nil {
		return llm.Block{}, anthropicInvalid("%s.content: %v", path, err)
	}
	for k, h := range hits {
		if h.Type != llm.BlockWebSearchHit || h.URL == "" || h.EncryptedContent == "" {
			return llm.Block{}, anthropicInvalid("%s.content.%d: a web_search_result needs its url and encrypted_content, sent back as they came", path, k)
		}
		b.Content = append(b.Content, llm.Block{Type: llm.BlockWebSearchHit, URL: h.URL, Title: h.Title, EncryptedContent: h.EncryptedContent, PageAge: h.PageAge})
	}
	return b, nil
}
