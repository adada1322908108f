package anthropic

import (
	"context"
	"net/http"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
)

// TestDefaultEnvironmentReachesTheRealAPI builds the provider exactly as a user's plain
// environment does, a key and nothing else (no base URL, no config, the default HTTP
// client), and checks where the request would go. Every other test sets a base URL, which
// is how "base url is not set" once failed every real request unnoticed.
func TestDefaultEnvironmentReachesTheRealAPI(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-plain")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	rec := fakeserver.RecordDefault(t)

	p, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, noStream := range []bool{false, true} {
		p.cfg.NoStream = noStream
		_, err = p.Complete(context.Background(), &llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{llm.UserText("hi")}}, nil)
		if err == nil {
			t.Fatal("the recorder's 401 came back as a success")
		}
	}
	reqs := rec.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests reached the transport (%v), want 2: one per call, no retry of a 401", len(reqs), err)
	}
	for _, r := range reqs {
		if r.URL.Scheme != "https" || r.URL.Host != "api.anthropic.com" || r.URL.Path != "/v1/messages" || r.Method != http.MethodPost {
			t.Errorf("request went to %s %s, want POST https://api.anthropic.com/v1/messages", r.Method, r.URL)
		}
		if got := r.Header.Get("X-Api-Key"); got != "sk-ant-plain" || r.Header.Get("Authorization") != "" {
			t.Errorf("x-api-key %q authorization %q, want the key from ANTHROPIC_API_KEY in x-api-key alone", got, r.Header.Get("Authorization"))
		}
		if r.Header.Get("Anthropic-Version") == "" {
			t.Error("no anthropic-version header")
		}
	}
}
