package llm_test

import (
	"context"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// A Meter adds up what the calls through it cost.
func TestMeterCountsUsageAndCost(t *testing.T) {
	u := llm.Usage{InputTokens: 1000, OutputTokens: 100}
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "a", Usage: &u}, {Text: "b", Usage: &u}}})
	m := &llm.Meter{Provider: p, Model: "claude-sonnet-5-5"}
	for range 2 {
		if _, err := m.Complete(context.Background(), &llm.Request{Model: "claude-sonnet-5-5", Messages: []llm.Message{llm.UserText("hi")}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, cost := m.Spent()
	if got.InputTokens != 2000 || got.OutputTokens != 200 || cost <= 0 {
		t.Errorf("spent %+v, $%v", got, cost)
	}
}
