package openai

import (
	"context"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// A request's effort reaches the server as reasoning_effort, xhigh and max as high (the
// most an OpenAI-compatible server commonly knows); no effort sends none, and thinking
// asked for alone sends nothing either (there is no budget on this wire).
func TestReasoningEffortOnTheWire(t *testing.T) {
	for effort, want := range map[string]string{"low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high", "": ""} {
		srv, url := fake(t, `{"turns":[{"text":"ok"}]}`)
		p := newProvider(t, Config{BaseURL: url})
		req := userReq("hi")
		req.Effort = effort
		if effort == "" {
			req.Thinking = llm.Thinking{Budget: 4000}
		}
		if _, err := p.Complete(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		b := body(t, srv, 0)
		got, has := b["reasoning_effort"]
		if want == "" && has || want != "" && got != want {
			t.Errorf("effort %q: reasoning_effort %v (sent: %v), want %q", effort, got, has, want)
		}
		for _, k := range []string{"thinking", "reasoning", "temperature"} {
			if _, ok := b[k]; ok {
				t.Errorf("effort %q: %s was sent", effort, k)
			}
		}
	}
}
