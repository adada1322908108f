//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// This test drives the built `ouro acp` with the official TypeScript ACP client library
// (@agentclientprotocol/sdk, pinned in .ci/acp-node/package-lock.json), run by the Node
// of .ci/mcp-node. Without them it skips, saying what to run; .ci/run installs them and
// sets OURO_MCP_NODE_REQUIRED, which makes a missing install a failure.

// acpNode returns the folder .ci/acp-node/install filled (its pkgs/node_modules).
func acpNode(t *testing.T) string {
	t.Helper()
	return installed(t, "runs the TypeScript ACP client", "OURO_ACP_NODE_DIR", "acp-node",
		".ci/acp-node/install", "the TypeScript ACP library (@agentclientprotocol/sdk)", "OURO_MCP_NODE_REQUIRED")
}

type acpReport struct {
	Init struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool `json:"loadSession"`
			PromptCapabilities struct {
				Image, EmbeddedContext bool
			} `json:"promptCapabilities"`
		} `json:"agentCapabilities"`
	} `json:"init"`
	Modes struct {
		CurrentModeID  string `json:"currentModeId"`
		AvailableModes []struct {
			ID string `json:"id"`
		} `json:"availableModes"`
	} `json:"modes"`
	Asked []struct {
		Title, Kind, Answer string
		Options             []string
	} `json:"asked"`
	Diffs []struct {
		Path, OldText, NewText string
	} `json:"diffs"`
	SessionID string   `json:"sessionId"`
	Stop1     string   `json:"stop1"`
	Stop2     string   `json:"stop2"`
	Stop3     string   `json:"stop3"`
	Turn1     []string `json:"turn1"`
	Turn2     []string `json:"turn2"`
	Turn3     []string `json:"turn3"`
	Replay    []string `json:"replay"`
}

// A session in an editor: a prompt that reads a file, edits it twice (the first edit
// allowed, the second rejected) and runs a command; a second prompt cancelled while
// its command runs; then ouro is started again and the session loaded (replayed) and
// continued.
func TestACPWithTheTypeScriptClient(t *testing.T) {
	nodeDir, acpDir := mcpNode(t), acpNode(t)
	e := newEnv(t)
	notes := filepath.Join(e.dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) []scripted.ToolCall {
		in, _ := json.Marshal(map[string]string{"file_path": notes, "old_string": old, "new_string": new})
		return []scripted.ToolCall{{Name: "Edit", Input: in}}
	}
	read, _ := json.Marshal(map[string]string{"file_path": notes})
	e.fake(
		scripted.Turn{ExpectContains: "notes.txt", Thinking: "read it first", ToolCalls: []scripted.ToolCall{{Name: "Read", Input: read}}},
		scripted.Turn{ExpectContains: "beta", ToolCalls: edit("beta", "gamma")},
		scripted.Turn{ToolCalls: edit("alpha", "omega")},
		scripted.Turn{ExpectContains: "rejected", ToolCalls: bash("printf 'ran-%s' ok > out.txt && cat out.txt")},
		scripted.Turn{ExpectContains: "ran-ok", Text: "gamma is in; alpha stays"},
		scripted.Turn{ExpectContains: "wait for it", ToolCalls: bash("sleep 60")},
		scripted.Turn{ExpectContains: "after load", Text: "resumed where we were"},
	)
	var r acpReport
	runACPClient(t, e, nodeDir, acpDir, &r, "client.mjs", binary, e.dir, "allow_once", "reject")

	if r.Init.ProtocolVersion != 1 || !r.Init.AgentCapabilities.LoadSession || !r.Init.AgentCapabilities.PromptCapabilities.Image || !r.Init.AgentCapabilities.PromptCapabilities.EmbeddedContext {
		t.Errorf("initialize = %+v", r.Init)
	}
	if r.Modes.CurrentModeID != "default" || len(r.Modes.AvailableModes) != 5 {
		t.Errorf("modes = %+v", r.Modes)
	}
	// The two edits were asked about, with the three options, and the command that
	// writes out.txt (answered with the client's default, allow once); sleep was not.
	if len(r.Asked) != 3 || r.Asked[0].Kind != "edit" || r.Asked[0].Answer != "allow_once" || r.Asked[1].Answer != "reject" || r.Asked[2].Kind != "execute" {
		t.Fatalf("permission requests = %+v", r.Asked)
	}
	if got := strings.Join(r.Asked[0].Options, " "); got != "allow_once:allow_once allow_always:allow_always reject:reject_once" {
		t.Errorf("options = %s", got)
	}
	if data, _ := os.ReadFile(notes); string(data) != "alpha\ngamma\n" {
		t.Errorf("notes.txt = %q: the allowed edit should be made and the rejected one not", data)
	}
	if data, _ := os.ReadFile(filepath.Join(e.dir, "out.txt")); string(data) != "ran-ok" {
		t.Errorf("out.txt = %q", data)
	}
	if len(r.Diffs) != 2 || r.Diffs[0].Path != notes || r.Diffs[0].OldText != "beta" || r.Diffs[0].NewText != "gamma" {
		t.Errorf("diffs = %+v", r.Diffs)
	}
	if r.Stop1 != "end_turn" || r.Stop2 != "cancelled" || r.Stop3 != "end_turn" {
		t.Errorf("stop reasons = %s, %s, %s; want end_turn, cancelled, end_turn", r.Stop1, r.Stop2, r.Stop3)
	}
	turn1 := strings.Join(r.Turn1, "\n")
	for _, want := range []string{
		"available_commands_update:",
		"agent_thought_chunk:read it first",
		"tool_call:read:pending:Read notes.txt",
		"tool_call:edit:pending:Edit notes.txt",
		"tool_call_update:failed", // the rejected edit
		"tool_call:execute:pending:`printf 'ran-%s' ok > out.txt && cat out.txt`",
		"agent_message_chunk:gamma is in; alpha stays",
	} {
		if !strings.Contains(turn1, want) {
			t.Errorf("first turn lacks %q:\n%s", want, turn1)
		}
	}
	if turn2 := strings.Join(r.Turn2, "\n"); !strings.Contains(turn2, "tool_call:execute:pending:`sleep 60`") || !strings.Contains(turn2, "tool_call_update:in_progress") {
		t.Errorf("second turn:\n%s", turn2)
	}
	replay := strings.Join(r.Replay, "\n")
	for _, want := range []string{"user_message_chunk:tidy notes.txt", "tool_call:edit:pending:Edit notes.txt", "agent_message_chunk:gamma is in; alpha stays", "user_message_chunk:wait for it"} {
		if !strings.Contains(replay, want) {
			t.Errorf("replay lacks %q:\n%s", want, replay)
		}
	}
	if turn3 := strings.Join(r.Turn3, "\n"); !strings.Contains(turn3, "agent_message_chunk:resumed where we were") {
		t.Errorf("turn after load:\n%s", turn3)
	}
	if !transcriptHas(filepath.Join(e.home, ".ouro"), r.SessionID) {
		t.Errorf("no transcript names session %s", r.SessionID)
	}
}

// runACPClient runs the client script testdata/acp/NAME with args under the Node of
// .ci/mcp-node and decodes the JSON report it prints into report.
func runACPClient(t *testing.T, e *env, nodeDir, acpDir string, report any, name string, args ...string) {
	t.Helper()
	// The script finds the library through a node_modules next to it.
	work := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "acp", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, name), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(acpDir, "pkgs", "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, filepath.Join(nodeDir, "node", "bin", "node"), append([]string{filepath.Join(work, name)}, args...)...)
	c.Env = append(e.vars, "PATH="+filepath.Join(nodeDir, "node", "bin")+":"+os.Getenv("PATH"))
	c.Dir = work
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s\n%s", name, err, out, tail(stderr.String(), 4000))
	}
	if err := json.Unmarshal(out, report); err != nil {
		t.Fatalf("%s report: %v\n%s", name, err, out)
	}
}

// An editor offering its file system holds the file: ouro reads the unsaved buffer and
// its edit lands there, through fs/read_text_file and fs/write_text_file, while the file
// on disk stays as saved. set_mode acceptEdits lets the edit through without asking.
func TestACPEditorBuffersWithTheTypeScriptClient(t *testing.T) {
	nodeDir, acpDir := mcpNode(t), acpNode(t)
	e := newEnv(t)
	file := filepath.Join(e.dir, "main.go")
	if err := os.WriteFile(file, []byte("package main // saved\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read, _ := json.Marshal(map[string]string{"file_path": file})
	edit, _ := json.Marshal(map[string]string{"file_path": file, "old_string": "unsaved", "new_string": "edited"})
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Read", Input: read}}},
		scripted.Turn{ExpectContains: "unsaved", ToolCalls: []scripted.ToolCall{{Name: "Edit", Input: edit}}},
		scripted.Turn{Text: "edited the buffer"},
	)
	var r struct {
		FS     []string `json:"fs"`
		Modes  []string `json:"modes"`
		Asked  bool     `json:"asked"`
		Stop   string   `json:"stop"`
		Buffer string   `json:"buffer"`
	}
	runACPClient(t, e, nodeDir, acpDir, &r, "buffers.mjs", binary, e.dir, file, "package main // unsaved\n")
	if r.Stop != "end_turn" || r.Asked || strings.Join(r.Modes, ",") != "acceptEdits" {
		t.Errorf("stop %s, asked %v, modes %v", r.Stop, r.Asked, r.Modes)
	}
	if r.Buffer != "package main // edited\n" {
		t.Errorf("buffer = %q", r.Buffer)
	}
	// Read and Edit each read the buffer; Edit wrote it.
	if got := strings.Join(r.FS, "; "); got != "read "+file+"; read "+file+"; write "+file {
		t.Errorf("fs calls = %s", got)
	}
	if data, _ := os.ReadFile(file); string(data) != "package main // saved\n" {
		t.Errorf("disk = %q: the editor saves, not ouro", data)
	}
}
