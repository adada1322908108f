//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// wireFields decodes what request i carried of thinking and effort ("" when absent).
func wireFields(t *testing.T, srv *fakeserver.Server, i int) (thinking, effort string, maxTokens float64) {
	t.Helper()
	reqs := srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("request %d not received (%d were)", i, len(reqs))
	}
	var b map[string]any
	if err := json.Unmarshal(reqs[i].Body, &b); err != nil {
		t.Fatal(err)
	}
	if th, ok := b["thinking"]; ok {
		raw, _ := json.Marshal(th)
		thinking = string(raw)
	}
	if oc, ok := b["output_config"].(map[string]any); ok {
		effort, _ = oc["effort"].(string)
	}
	if _, ok := b["temperature"]; ok {
		t.Errorf("request %d carries a temperature", i)
	}
	maxTokens, _ = b["max_tokens"].(float64)
	return thinking, effort, maxTokens
}

// ouro -p --effort sends the effort as output_config.effort (xhigh as high to a model
// without it); no flag, variable or setting sends neither effort nor thinking; an effort
// ouro does not know is refused before any request.
func TestEffortFlagReachesTheModel(t *testing.T) {
	for _, c := range []struct {
		args             []string
		env              string
		thinking, effort string
	}{
		{args: []string{"--model", "claude-opus-4-6"}},
		{args: []string{"--model", "claude-opus-4-6", "--effort", "high"}, effort: "high"},
		{args: []string{"--model", "claude-opus-4-6", "--effort", "xhigh"}, effort: "high"},
		{args: []string{"--model", "claude-opus-5-5"}, env: "CLAUDE_CODE_EFFORT_LEVEL=max", effort: "max"},
		{args: []string{"--model", "claude-opus-5-5", "--thinking", "adaptive", "--thinking-display", "summarized", "--effort", "low"},
			thinking: `{"display":"summarized","type":"adaptive"}`, effort: "low"},
		{args: []string{"--model", "claude-sonnet-4-5", "--max-thinking-tokens", "4096"}, thinking: `{"budget_tokens":4096,"type":"enabled"}`},
		{args: []string{"--model", "claude-sonnet-4-5"}, env: "MAX_THINKING_TOKENS=5000", thinking: `{"budget_tokens":5000,"type":"enabled"}`},
		{args: []string{"--model", "claude-sonnet-4-5", "--thinking", "disabled"}, env: "MAX_THINKING_TOKENS=5000"},
	} {
		e := newEnv(t)
		if c.env != "" {
			e.vars = append(e.vars, c.env)
		}
		srv := e.fake(scripted.Turn{Text: "done"})
		_, stderr, code := e.run("", append([]string{"-p", "hi"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.args, code, stderr)
		}
		th, eff, _ := wireFields(t, srv, 0)
		if th != c.thinking || eff != c.effort {
			t.Errorf("%v %s: thinking %s effort %q, want %s %q", c.args, c.env, th, eff, c.thinking, c.effort)
		}
	}
	e := newEnv(t)
	srv := e.fake(scripted.Turn{Text: "unused"})
	_, stderr, code := e.run("", "-p", "hi", "--effort", "extreme")
	if code == 0 || !strings.Contains(stderr, `--effort: effort "extreme" is not one of low, medium, high, xhigh, max`) || len(srv.Requests()) != 0 {
		t.Errorf("--effort extreme: exit %d, %d requests\n%s", code, len(srv.Requests()), stderr)
	}
}

// alwaysThinkingEnabled in the project's settings turns thinking on with Claude Code's
// budget below max_tokens; the thinking block that opened a tool call goes back unchanged
// (signature and all, ahead of the tool_use: the fake server refuses anything else) on
// the next request, and again after the session is resumed, where MAX_THINKING_TOKENS=0
// turns thinking off while the blocks stay in the conversation.
func TestAlwaysThinkingSettingKeepsThinkingBlocks(t *testing.T) {
	e := newEnv(t)
	os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(e.dir, ".claude", "settings.json"), []byte(`{"alwaysThinkingEnabled": true}`), 0o644)
	read, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, "go.mod")})
	const thought = "The module file names the module; read it first."
	srv := e.fake(
		scripted.Turn{Thinking: thought, RedactedThinking: "EmwKAhgBEgy3va3pzix", ToolCalls: []scripted.ToolCall{{ID: "toolu_r", Name: "Read", Input: read}}},
		scripted.Turn{ExpectContains: "example.com/demo", Text: "It is example.com/demo."},
		scripted.Turn{ExpectContains: "again", Text: "Still example.com/demo."},
	)
	out, stderr, code := e.run("", "-p", "which module?", "--model", "claude-sonnet-4-5", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for i := range 2 {
		th, eff, maxTokens := wireFields(t, srv, i)
		if want := `{"budget_tokens":31999,"type":"enabled"}`; th != want || eff != "" || maxTokens != 32000 {
			t.Errorf("request %d: thinking %s effort %q max_tokens %v, want %s, none, 32000", i, th, eff, maxTokens, want)
		}
	}
	wantBack := func(i int) {
		t.Helper()
		msgs := srv.Requests()[i].Messages
		if len(msgs) < 3 {
			t.Fatalf("request %d has %d messages", i, len(msgs))
		}
		c := msgs[1].Content
		if len(c) != 3 || c[0].Type != llm.BlockThinking || c[0].Thinking != thought || c[0].Signature != scripted.Signature(thought) ||
			c[1].Type != llm.BlockRedactedThinking || c[1].Data != "EmwKAhgBEgy3va3pzix" || c[2].Type != llm.BlockToolUse {
			t.Errorf("request %d sent the thinking back as %+v", i, c)
		}
	}
	wantBack(1)
	e.vars = append(e.vars, "MAX_THINKING_TOKENS=0")
	out, stderr, code = e.run("", "-p", "again?", "--model", "claude-sonnet-4-5", "-r", res["session_id"].(string))
	if code != 0 || !strings.Contains(out, "Still example.com/demo.") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, stderr)
	}
	wantBack(2)
	if th, _, _ := wireFields(t, srv, 2); th != "" {
		t.Errorf("MAX_THINKING_TOKENS=0 sent thinking %s", th)
	}
}
