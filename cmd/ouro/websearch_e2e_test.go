//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// openAPISearch is what a search for the OpenAPI specification finds: real pages, one of
// them outside the domains the call allows.
var openAPISearch = scripted.SearchCall{Query: "OpenAPI specification 3.1.1", Results: []scripted.SearchResult{
	{URL: "https://spec.openapis.org/oas/v3.1.1.html", Title: "OpenAPI Specification v3.1.1", PageAge: "October 24, 2024"},
	{URL: "https://github.com/OAI/OpenAPI-Specification/releases", Title: "Releases · OAI/OpenAPI-Specification · GitHub"},
	{URL: "https://swagger.io/specification/", Title: "OpenAPI Specification - Version 3.1.0 | Swagger"},
}}

func webSearchInput(t *testing.T, in map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Issue 30, item 16, on Anthropic: a real agent file naming WebSearch (awesome-claude-
// agents' api-architect) gets the tool; its call, allowed by a `WebSearch` rule, makes a
// request of its own with the web_search server tool (the call's domains, max_uses 8),
// which the fake server answers in the real wire format; the child reads the links the
// domains let through and the model's text, and the transcript keeps them. Only that
// nested request declares the server tool.
func TestWebSearchThroughBinary(t *testing.T) {
	e := newEnv(t)
	agent, err := os.ReadFile(filepath.Join(corpusDir, "awesome-claude-agents", ".claude", "agents", "api-architect.md"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.dir, ".claude", "agents", "api-architect.md"), string(agent))
	call := webSearchInput(t, map[string]any{"query": "OpenAPI specification 3.1.1", "allowed_domains": []string{"spec.openapis.org", "github.com"}})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("api-architect", "check the spec", "Which OpenAPI version should the contract use?")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "WebSearch", Input: call}}},
		scripted.Turn{ExpectContains: "Perform a web search for the query: OpenAPI specification 3.1.1",
			WebSearch: []scripted.SearchCall{openAPISearch}, Text: "OpenAPI 3.1.1 was published on 24 October 2024; it is a patch release of 3.1."},
		scripted.Turn{ExpectContains: "https://spec.openapis.org/oas/v3.1.1.html",
			Text: "Use OpenAPI 3.1.1.\n\nSources:\n- [OpenAPI Specification v3.1.1](https://spec.openapis.org/oas/v3.1.1.html)"},
		scripted.Turn{ExpectContains: "Use OpenAPI 3.1.1", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "design the API", "--settings", `{"permissions":{"allow":["WebSearch"]}}`)
	if code != 0 || out != "done\n" || srv.Remaining() != 0 {
		t.Fatalf("exit %d, %d steps left, out %q\n%s", code, srv.Remaining(), out, stderr)
	}
	if strings.Contains(stderr, "not available in ouro") {
		t.Errorf("the agent file's WebSearch is reported missing:\n%s", stderr)
	}
	reqs := srv.Requests()
	_, childTools, _ := requestFields(t, reqs[1].Body)
	if !strings.Contains(strings.Join(childTools, ","), "WebSearch") {
		t.Errorf("the child is not offered WebSearch: %v", childTools)
	}
	for i, r := range reqs {
		if has := strings.Contains(string(r.Body), "web_search_20250305"); has != (i == 2) {
			t.Errorf("request %d declares the web search server tool: %v", i, has)
		}
	}
	var nested struct {
		System []struct {
			Text string `json:"text"`
		} `json:"system"`
		Stream bool             `json:"stream"`
		Tools  []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(reqs[2].Body, &nested); err != nil {
		t.Fatal(err)
	}
	if len(nested.Tools) != 1 || nested.Tools[0]["name"] != "web_search" || nested.Tools[0]["max_uses"] != float64(8) ||
		len(nested.Tools[0]["allowed_domains"].([]any)) != 2 || !nested.Stream ||
		len(nested.System) == 0 || !strings.Contains(nested.System[0].Text, "web search") {
		t.Errorf("the search request: %s", reqs[2].Body)
	}
	result := string(reqs[3].Body)
	for _, want := range []string{`Web search results for query: \"OpenAPI specification 3.1.1\"`,
		`\"title\":\"OpenAPI Specification v3.1.1\",\"url\":\"https://spec.openapis.org/oas/v3.1.1.html\"`,
		"https://github.com/OAI/OpenAPI-Specification/releases", "published on 24 October 2024", "REMINDER: You MUST include the sources"} {
		if !strings.Contains(result, want) {
			t.Errorf("the child's next request lacks %s:\n%s", want, result)
		}
	}
	if strings.Contains(result, "swagger.io") {
		t.Errorf("a result outside allowed_domains reached the model:\n%s", result)
	}
	root := filepath.Join(e.home, ".ouro", "projects")
	for _, want := range []string{"Web search results for query", "https://spec.openapis.org/oas/v3.1.1.html", "Releases · OAI/OpenAPI-Specification"} {
		if !transcriptHas(root, want) {
			t.Errorf("no transcript holds %q", want)
		}
	}
}

// A deny rule naming WebSearch hides the tool and refuses a call made anyway: no search
// request goes out.
func TestWebSearchDeniedByRule(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "WebSearch", Input: webSearchInput(t, map[string]any{"query": "OpenAPI 3.1.1"})}}},
		scripted.Turn{ExpectContains: "WebSearch", Text: "cannot search"},
	)
	out, stderr, code := e.run("", "-p", "search", "--permission-mode", "bypassPermissions", "--settings", `{"permissions":{"deny":["WebSearch"]}}`)
	if code != 0 || out != "cannot search\n" || srv.Remaining() != 0 {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	reqs := srv.Requests()
	_, tools, _ := requestFields(t, reqs[0].Body)
	if strings.Contains(strings.Join(tools, ","), "WebSearch") {
		t.Errorf("a denied WebSearch is offered: %v", tools)
	}
	if len(reqs) != 2 || strings.Contains(string(reqs[1].Body), "Web search results") {
		t.Errorf("%d requests; the second:\n%s", len(reqs), reqs[1].Body)
	}
}

// On an OpenAI-compatible server, which has no server-side search, the call says it is
// not available with this model and nothing is sent for it.
func TestWebSearchNotAvailableOnOpenAI(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "WebSearch", Input: webSearchInput(t, map[string]any{"query": "OpenAPI 3.1.1"})}}},
		scripted.Turn{ExpectContains: "WebSearch is not available with this model (openai)", Text: "no search here"},
	)
	out, stderr, code := e.run("", "-p", "search", "--model", "openai:gpt-5", "--settings", `{"permissions":{"allow":["WebSearch"]}}`)
	if code != 0 || out != "no search here\n" || srv.Remaining() != 0 {
		t.Fatalf("exit %d, %d steps left, out %q\n%s", code, srv.Remaining(), out, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2: the search must not reach the server", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), `"name":"WebSearch"`) {
		t.Errorf("WebSearch is not declared on the OpenAI path:\n%s", reqs[0].Body)
	}
	if !strings.Contains(string(reqs[1].Body), "Use WebFetch on a URL you know instead") {
		t.Errorf("the result does not say what to do instead:\n%s", reqs[1].Body)
	}
}

// A real user settings file (macalinao/dotfiles, MIT, deployed to ~/.claude/settings.json)
// allows "WebSearch" among its rules: the search runs without asking in a headless run,
// with the settings' model (opus), and the model reads what it found.
func TestWebSearchAllowedByRealUserSettings(t *testing.T) {
	e := newEnv(t)
	data, err := os.ReadFile(filepath.Join(corpusDir, "macalinao-dotfiles", "home", ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(data, &s); err != nil || !strings.Contains(strings.Join(s.Permissions.Allow, "\n"), "\nWebSearch\n") {
		t.Fatalf("the corpus file no longer allows WebSearch (%v)", err)
	}
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), string(data))
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "WebSearch", Input: webSearchInput(t, map[string]any{"query": "OpenAPI specification 3.1.1"})}}},
		scripted.Turn{WebSearch: []scripted.SearchCall{openAPISearch}, Text: "OpenAPI 3.1.1 was published on 24 October 2024."},
		scripted.Turn{ExpectContains: "https://swagger.io/specification/", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "which OpenAPI version?")
	if code != 0 || out != "done\n" || srv.Remaining() != 0 {
		t.Fatalf("exit %d, %d steps left, out %q\n%s", code, srv.Remaining(), out, stderr)
	}
	if model, _, _ := requestFields(t, srv.Requests()[1].Body); model != "claude-opus-5-5" {
		t.Errorf("the search asked %q, want the session's model", model)
	}
}
