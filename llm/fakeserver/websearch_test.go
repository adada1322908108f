package fakeserver

import (
	"io"
	"strings"
	"testing"
)

const searchScript = `{"turns":[{"web_search":[{"query":"go 1.24 release notes","results":[
  {"url":"https://go.dev/doc/go1.24","title":"Go 1.24 Release Notes - The Go Programming Language","page_age":"February 11, 2025"},
  {"url":"https://pkg.go.dev/maps","title":"maps package - maps - Go Packages"}]}],
 "text":"Go 1.24 was released in February 2025."}]}`

// The stream of a searching turn is the real API's: a server_tool_use block whose input
// comes in input_json_delta pieces, the web_search_tool_result whole in its start event
// (results the allowed domains keep, each with encrypted_content), the text with a
// citations_delta before its text, and the searches counted in usage.server_tool_use.
func TestWebSearchStream(t *testing.T) {
	_, url := newAnthropicTestServer(t, searchScript)
	resp := postAnthropic(t, url, `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,
	  "messages":[{"role":"user","content":"Perform a web search for the query: go 1.24"}],
	  "tools":[{"type":"web_search_20250305","name":"web_search","max_uses":8,"allowed_domains":["go.dev/doc"]}]}`)
	body, _ := io.ReadAll(resp.Body)
	s := string(body)
	for _, want := range []string{
		`"content_block":{"id":"srvtoolu_01_01","input":{},"name":"web_search","type":"server_tool_use"}`,
		`"delta":{"partial_json":`,
		`"content_block":{"content":[{"encrypted_content":"`,
		`"page_age":"February 11, 2025","title":"Go 1.24 Release Notes - The Go Programming Language","type":"web_search_result","url":"https://go.dev/doc/go1.24"}],"tool_use_id":"srvtoolu_01_01","type":"web_search_tool_result"}`,
		`"type":"citations_delta"`,
		`"type":"web_search_result_location","url":"https://go.dev/doc/go1.24"`,
		`"server_tool_use":{"web_search_requests":1}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the stream lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(s, "pkg.go.dev") {
		t.Errorf("a result outside allowed_domains was sent:\n%s", s)
	}
	if strings.Index(s, "citations_delta") > strings.Index(s, `"text_delta"`) {
		t.Error("the citation comes after the text it cites")
	}
}

// What the real API refuses is refused: both domain lists, a tool version it does not
// know; a script that searches for a request offering no web search fails the request.
func TestWebSearchRefusals(t *testing.T) {
	for _, c := range []struct{ tools, want string }{
		{`[{"type":"web_search_20250305","name":"web_search","allowed_domains":["go.dev"],"blocked_domains":["x.com"]}]`, "cannot be used together"},
		{`[{"type":"web_search_20990101","name":"web_search"}]`, "web_search_20250305"},
		{`[{"name":"Read","input_schema":{"type":"object"}}]`, "offers no web search tool"},
	} {
		_, url := newAnthropicTestServer(t, searchScript)
		resp := postAnthropic(t, url, `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"search"}],"tools":`+c.tools+`}`)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %s", c.tools, resp.StatusCode, body)
		}
	}
	// An entry the API cannot read answers the searches with invalid_tool_input.
	_, url := newAnthropicTestServer(t, searchScript)
	resp := postAnthropic(t, url, `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"search"}],
	  "tools":[{"type":"web_search_20250305","name":"web_search","blocked_domains":["https://x.com"]}]}`)
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"content":{"error_code":"invalid_tool_input","type":"web_search_tool_result_error"}`) {
		t.Errorf("a bad domain: %s", body)
	}
}
