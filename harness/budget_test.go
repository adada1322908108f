package harness

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// The first model request with every default tool stays under 6,000 tokens: system
// prompt, tool definitions and the prompt, estimated at four bytes a token (what the eval
// uses). The figure is printed.
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
	t.Logf("first request: %d tools, system %d bytes, tools %d bytes, messages %d bytes: about %d tokens (budget 6,000)",
		len(req.Tools), len(req.System), len(tools), len(msgs), tokens)
	if tokens >= 6000 {
		t.Errorf("the first request is about %d tokens, over the 6,000 budget", tokens)
	}
}
