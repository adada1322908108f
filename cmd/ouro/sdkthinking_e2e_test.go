//go:build unix

package main

import (
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// The Agent SDK's setMaxThinkingTokens (set_max_thinking_tokens) changes the thinking of
// the next turn: a budget turns it on, 0 off, null back to the session's own (here off);
// a negative budget is an error answer.
func TestSDKSetMaxThinkingTokensBetweenTurns(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(scripted.Turn{Text: "one"}, scripted.Turn{Text: "two"}, scripted.Turn{Text: "three"}, scripted.Turn{Text: "four"})
	s := startSDK(t, e, nil, "--model", "claude-sonnet-4-5")
	s.initialize(nil)
	s.user("first")
	s.result(1)
	if r := s.control(map[string]any{"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 2048}); r["subtype"] != "success" {
		t.Fatalf("set_max_thinking_tokens answered %v", r)
	}
	if r := s.control(map[string]any{"subtype": "set_max_thinking_tokens", "max_thinking_tokens": -5}); r["subtype"] != "error" {
		t.Fatalf("a negative budget answered %v", r)
	}
	s.user("second")
	s.result(2)
	s.control(map[string]any{"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 0})
	s.user("third")
	s.result(3)
	s.control(map[string]any{"subtype": "set_max_thinking_tokens", "max_thinking_tokens": nil})
	s.user("fourth")
	s.result(4)
	if code := s.finish(); code != 0 {
		t.Fatalf("exit %d\n%s", code, s.stderr)
	}
	for i, want := range []string{"", `{"budget_tokens":2048,"type":"enabled"}`, "", ""} {
		if th, _, _ := wireFields(t, srv, i); th != want {
			t.Errorf("turn %d: thinking %s, want %s", i+1, th, want)
		}
	}
}
