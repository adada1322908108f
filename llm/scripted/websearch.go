package scripted

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ouroagent/ouro/llm"
)

// SearchCall is one web search the model makes on the server's side, in a turn that
// answers a request offering web search (llm.Request.WebSearch): the answer carries a
// server_tool_use block with the query, then a web_search_tool_result with the results
// (those the request's domain lists let through), before the turn's text.
type SearchCall struct {
	Query   string         `json:"query"`
	Results []SearchResult `json:"results,omitempty"`
	// ErrorCode answers the search with an error instead (unavailable, too_many_requests,
	// query_too_long, invalid_tool_input, max_uses_exceeded).
	ErrorCode string `json:"error_code,omitempty"`
}

// SearchResult is one page a search finds.
type SearchResult struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	PageAge string `json:"page_age,omitempty"`
}

// searchErrors are the error codes the web search tool answers with.
var searchErrors = map[string]bool{"invalid_tool_input": true, "unavailable": true, "max_uses_exceeded": true,
	"too_many_requests": true, "query_too_long": true, "request_too_large": true}

func (c SearchCall) validate() error {
	if strings.TrimSpace(c.Query) == "" {
		return fmt.Errorf("query is required")
	}
	if c.ErrorCode != "" && !searchErrors[c.ErrorCode] {
		return fmt.Errorf("unknown error_code %q", c.ErrorCode)
	}
	if c.ErrorCode != "" && len(c.Results) > 0 {
		return fmt.Errorf("error_code and results are exclusive")
	}
	for _, r := range c.Results {
		if r.URL == "" || r.Title == "" {
			return fmt.Errorf("each result needs a url and a title")
		}
	}
	return nil
}

// searchBlocks are the server_tool_use and web_search_tool_result blocks of search k of
// turn i, with every result the script lists (ServeSearch filters them).
func searchBlocks(i, k int, c SearchCall) []llm.Block {
	id := fmt.Sprintf("srvtoolu_%02d_%02d", i+1, k+1)
	input, _ := json.Marshal(map[string]string{"query": c.Query})
	res := llm.Block{Type: llm.BlockWebSearchResult, ToolUseID: id}
	if c.ErrorCode != "" {
		res.Content = []llm.Block{{Type: llm.BlockWebSearchError, ErrorCode: c.ErrorCode}}
	}
	for _, r := range c.Results {
		// The real content is the page's text, encrypted for the model; an opaque token
		// of the same shape stands in for it.
		enc := base64.StdEncoding.EncodeToString([]byte("scripted:" + r.URL))
		res.Content = append(res.Content, llm.Block{Type: llm.BlockWebSearchHit, URL: r.URL, Title: r.Title, PageAge: r.PageAge, EncryptedContent: enc})
	}
	return []llm.Block{{Type: llm.BlockServerToolUse, ID: id, Name: "web_search", Input: input}, res}
}

// ServeSearch makes a turn's answer what the server would send for a request offering
// ws: results outside the allowed domains or inside the blocked ones are dropped, and a
// search past ws.MaxUses answers max_uses_exceeded. An answer with searches to a request
// that offers none is an error, as the real model cannot search then.
func ServeSearch(msg llm.Message, ws *llm.WebSearch) (llm.Message, error) {
	out := llm.Message{Role: msg.Role}
	uses := 0
	for _, b := range msg.Content {
		switch b.Type {
		case llm.BlockServerToolUse:
			if ws == nil {
				return msg, fmt.Errorf("the script searches the web (web_search), but the request offers no web search tool")
			}
			uses++
		case llm.BlockWebSearchResult:
			if ws.MaxUses > 0 && uses > ws.MaxUses {
				b.Content = []llm.Block{{Type: llm.BlockWebSearchError, ErrorCode: "max_uses_exceeded"}}
				break
			}
			var kept []llm.Block
			for _, h := range b.Content {
				if h.Type != llm.BlockWebSearchHit || searchAllowed(h.URL, ws) {
					kept = append(kept, h)
				}
			}
			b.Content = kept
		}
		out.Content = append(out.Content, b)
	}
	return out, nil
}

// searchAllowed reports whether a result at url passes the request's domain lists.
func searchAllowed(url string, ws *llm.WebSearch) bool {
	for _, d := range ws.BlockedDomains {
		if llm.SearchDomainMatches(d, url) {
			return false
		}
	}
	if len(ws.AllowedDomains) == 0 {
		return true
	}
	for _, d := range ws.AllowedDomains {
		if llm.SearchDomainMatches(d, url) {
			return true
		}
	}
	return false
}
