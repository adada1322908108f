//go:build unix

package main

import (
	"strings"
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

// /effort and /model --effort in the REPL: the effort of the next requests changes (xhigh
// as high to a model without it), the conversation goes on, /status and /effort say it;
// thinking shows as one line.
func TestSlashEffortAndModelEffort(t *testing.T) {
	e := newRewindEnv(t)
	srv := e.fake(scripted.Turn{Thinking: "a private plan", Text: "one"}, scripted.Turn{ExpectContains: "again", Text: "two"}, scripted.Turn{ExpectContains: "third", Text: "three"})
	out, errOut, code := e.run("hi\n/effort\n/model claude-opus-4-6 --effort xhigh\nagain\n/effort low\nthird\n/status\n/effort extreme\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"effort: the model's default · thinking: off", "model: claude-opus-4-6 · effort: xhigh", "effort: low · thinking: off (the conversation goes on)",
		"thinking    effort: low"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s\n%s", want, out, errOut)
		}
	}
	// The line mode shows that the model thought, not what.
	if !strings.Contains(out, "✻ thinking…\none") || strings.Contains(out, "a private plan") {
		t.Errorf("thinking in the line mode:\n%s", out)
	}
	if !strings.Contains(out+errOut, `effort "extreme" is not one of`) {
		t.Errorf("/effort extreme was not refused:\n%s\n%s", out, errOut)
	}
	for i, want := range []string{"", "high", "low"} {
		if _, eff, _ := wireFields(t, srv, i); eff != want {
			t.Errorf("request %d: effort %q, want %q", i, eff, want)
		}
	}
	if n := len(srv.Requests()[2].Messages); n != 5 {
		t.Errorf("the third request has %d messages: the conversation did not go on", n)
	}
}

// A real project's settings (the corpus' sdui-marketplace, which sets
// alwaysThinkingEnabled among its other keys) turn thinking on for the model's requests.
func TestCorpusAlwaysThinkingEnabled(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "sdui-marketplace")
	srv := e.fake(scripted.Turn{Thinking: "Nothing to do but answer.", Text: "hello"})
	out, stderr, code := e.run("", "-p", "say hello", "--model", "claude-haiku-4-5")
	if code != 0 || !strings.Contains(out, "hello") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if th, _, _ := wireFields(t, srv, 0); th != `{"budget_tokens":31999,"type":"enabled"}` {
		t.Errorf("thinking %s", th)
	}
}
