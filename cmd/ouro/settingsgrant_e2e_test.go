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

// curlCall is a Bash call that default mode asks about without a rule.
func curlCall() []scripted.ToolCall { return bash("curl -s http://127.0.0.1:9/x") }

// What the agent writes grants nothing later: a bypassPermissions session writes
// .claude/settings.local.json with an allow rule for curl; the next session, in default
// mode, still asks about curl (so -p refuses it) and warns about the file. The same file
// written by the person's own hand counts.
func TestAgentWrittenSettingsGrantNothingLater(t *testing.T) {
	content := `{"permissions": {"allow": ["Bash(curl *)"]}}`
	for _, by := range []string{"Write", "Bash"} {
		t.Run(by, func(t *testing.T) {
			e := newEnv(t)
			local := filepath.Join(e.dir, ".claude", "settings.local.json")
			// The sandbox keeps .claude/ read-only for Bash: the person turned it off.
			if by == "Bash" {
				os.MkdirAll(filepath.Join(e.home, ".claude"), 0o755)
				os.WriteFile(filepath.Join(e.home, ".claude", "settings.json"), []byte(`{"sandbox": {"enabled": false}}`), 0o644)
			}
			bin, _ := json.Marshal(map[string]any{"command": "mkdir -p .claude && printf '%s' '" + content + "' > .claude/settings.local.json"})
			write := []scripted.ToolCall{{Name: "Bash", Input: bin}}
			if by == "Write" {
				in, _ := json.Marshal(map[string]string{"file_path": local, "content": content})
				write = []scripted.ToolCall{{Name: "Write", Input: in}}
			}
			srv := e.fake(scripted.Turn{ToolCalls: write}, scripted.Turn{Text: "Saved."})
			out, stderr, code := e.run("", "-p", "allow curl from now on", "--permission-mode", "bypassPermissions")
			if code != 0 {
				t.Fatalf("session 1: exit %d\n%s\n%s", code, out, stderr)
			}
			if data, err := os.ReadFile(local); err != nil || string(data) != content {
				t.Fatalf("session 1 did not write the file: %v %q\n%s", err, data, lastResult(srv.Requests()[1].Body))
			}
			secondSession(t, e, local, by == "Write")
		})
	}
}

// secondSession checks that the agent-written file at local grants nothing, and, when
// handEdit, that the person's own edit of it then counts.
func secondSession(t *testing.T, e *env, local string, handEdit bool) {
	srv := e.fake(scripted.Turn{ToolCalls: curlCall()}, scripted.Turn{Text: "done"})
	out, stderr, code := e.run("", "-p", "fetch it")
	if !strings.Contains(stderr, local+": permissions.allow ignored: it was written or changed by ouro's tools") ||
		!strings.Contains(stderr, "edit it yourself") {
		t.Fatalf("session 2 did not warn about the agent-written file (exit %d):\n%s", code, stderr)
	}
	if res := lastResult(srv.Requests()[1].Body); !strings.Contains(res, "Permission denied: headless run: curl") {
		t.Fatalf("curl was not asked about: %s", res)
	}
	if !strings.Contains(stderr, "permission was denied for 1 call") {
		t.Fatalf("the refusal is not reported: %s", stderr)
	}
	if !handEdit {
		return
	}
	// The person edits the file by hand (between sessions): it is theirs, and counts.
	if err := os.WriteFile(local, []byte(`{"permissions": {"allow": ["Bash(curl *)"]}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv = e.fake(scripted.Turn{ToolCalls: curlCall()}, scripted.Turn{Text: "done"})
	out, stderr, code = e.run("", "-p", "fetch it")
	if strings.Contains(stderr, "ignored") || strings.Contains(stderr, "permission was denied") {
		t.Fatalf("the person's own file did not count (exit %d):\n%s\n%s", code, out, stderr)
	}
	if res := lastResult(srv.Requests()[1].Body); strings.Contains(res, "Permission denied") || !strings.Contains(res, "Exit code") {
		t.Fatalf("curl did not run under the person's rule: %s", res)
	}
}

// lastResult is the text of the last tool result in a request body.
func lastResult(body []byte) string {
	var req struct {
		Messages []struct {
			Content []struct {
				Type    string `json:"type"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	out := ""
	for _, m := range req.Messages {
		for _, b := range m.Content {
			if b.Type == "tool_result" && len(b.Content) > 0 {
				out = b.Content[0].Text
			}
		}
	}
	return out
}

// An "always" answer is the person's word: the rule ouro saves for it in
// .ouro/settings.local.json counts in the next session, without a warning.
func TestAlwaysAnswerStillGrantsLater(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{ToolCalls: curlCall()}, scripted.Turn{Text: "done"})
	if out, stderr, code := e.run("fetch it\na\n/exit\n"); code != 0 {
		t.Fatalf("session 1: exit %d\n%s\n%s", code, out, stderr)
	}
	if data, err := os.ReadFile(filepath.Join(e.dir, ".ouro", "settings.local.json")); err != nil || !strings.Contains(string(data), "curl") {
		t.Fatalf("no rule was saved: %v %s", err, data)
	}
	srv := e.fake(scripted.Turn{ToolCalls: curlCall()}, scripted.Turn{Text: "done"})
	out, stderr, _ := e.run("", "-p", "fetch it")
	if strings.Contains(stderr, "ignored") || strings.Contains(stderr, "permission was denied") {
		t.Fatalf("the person's saved rule did not count:\n%s\n%s", out, stderr)
	}
	if res := lastResult(srv.Requests()[1].Body); strings.Contains(res, "Permission denied") {
		t.Fatalf("curl was refused: %s", res)
	}
}

// In an interactive session the person is asked about an agent-written settings file; a
// yes lets it grant, from then on.
func TestAgentWrittenSettingsApprovedInTheREPL(t *testing.T) {
	e := newEnv(t)
	local := filepath.Join(e.dir, ".claude", "settings.local.json")
	in, _ := json.Marshal(map[string]string{"file_path": local, "content": `{"permissions": {"allow": ["Bash(curl *)"]}}`})
	e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: in}}}, scripted.Turn{Text: "Saved."})
	if out, stderr, code := e.run("", "-p", "allow curl", "--permission-mode", "bypassPermissions"); code != 0 {
		t.Fatalf("session 1: exit %d\n%s\n%s", code, out, stderr)
	}
	srv := e.fake(scripted.Turn{ToolCalls: curlCall()}, scripted.Turn{Text: "done"})
	out, stderr, code := e.run("y\nfetch it\n/exit\n")
	if code != 0 || !strings.Contains(out, local+" asks for its permission rules") || strings.Contains(stderr, "ignored") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if res := lastResult(srv.Requests()[1].Body); strings.Contains(res, "Permission denied") || strings.Contains(out, "wants to:") {
		t.Fatalf("the approved rule did not count: %s\n%s", res, out)
	}
	// Approved once: a headless run takes it without a warning.
	e.fake(scripted.Turn{Text: "ok"})
	if _, stderr, _ := e.run("", "-p", "hi"); strings.Contains(stderr, "ignored") {
		t.Fatalf("the approval did not last: %s", stderr)
	}
}
