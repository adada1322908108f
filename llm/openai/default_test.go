package openai

import (
	"context"
	"net/http"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
)

// TestDefaultEnvironmentReachesTheRealAPI builds the provider exactly as a user's plain
// environment does, OPENAI_API_KEY and nothing else (no base URL, the default HTTP
// client), and checks where the request would go, without any network.
func TestDefaultEnvironmentReachesTheRealAPI(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-openai-plain")
	t.Setenv("OPENAI_BASE_URL", "")
	rec := fakeserver.RecordDefault(t)

	p, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, noStream := range []bool{false, true} {
		p.noStream = noStream
		_, err = p.Complete(context.Background(), &llm.Request{Model: "gpt-4o", Messages: []llm.Message{llm.UserText("hi")}}, nil)
		if err == nil {
			t.Fatal("the recorder's 401 came back as a success")
		}
	}
	reqs := rec.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests reached the transport (%v), want 2: one per call, no retry of a 401", len(reqs), err)
	}
	for _, r := range reqs {
		if r.URL.Scheme != "https" || r.URL.Host != "api.openai.com" || r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			t.Errorf("request went to %s %s, want POST https://api.openai.com/v1/chat/completions", r.Method, r.URL)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sk-openai-plain" {
			t.Errorf("authorization %q, want the key from OPENAI_API_KEY", got)
		}
	}
}
