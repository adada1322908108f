package harness

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// The first model request with every default tool stays within 4,500 tokens (issue 32,
// goal 5; it was about 5,300 before the tool texts were shortened): system prompt, tool
// definitions and the prompt, estimated at four bytes a token (what the eval and the fake
// server use). The figure is printed; cmd/ouro's BenchmarkFirstRequest measures the same
// request as `ouro -p` sends it on both wires.
func TestFirstRequestBudget(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	s, p := open(t, home, cwd, []scripted.Turn{{Text: "ok"}}, func(o *Options) { o.Access.Mode = "" })
	if o := s.Run(context.Background(), "what is here?"); !o.OK() {
		t.Fatalf("outcome %+v", o)
	}
	req := p.Requests()[0]
	tools, _ := json.Marshal(req.Tools)
	msgs, _ := json.Marshal(req.Messages)
	bytes := len(req.System) + len(tools) + len(msgs)
	tokens := bytes / 4
	t.Logf("first request: %d tools, system %d bytes, tools %d bytes, messages %d bytes: about %d tokens (budget 4,500)",
		len(req.Tools), len(req.System), len(tools), len(msgs), tokens)
	if tokens > 4500 {
		t.Errorf("the first request is about %d tokens, over the 4,500 budget", tokens)
	}
}
