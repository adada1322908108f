//go:build unix

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Issue 30 item 11 for MCP: MCP_TIMEOUT and MAX_MCP_OUTPUT_TOKENS from the settings' env
// (not only the shell's): a server that never answers fails within that timeout, and a
// tool's long result reaches the model cut to the bound, the rest saved to a file.
func TestMCPTuningFromSettingsEnv(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"env": {"MCP_TIMEOUT": "1200", "MAX_MCP_OUTPUT_TOKENS": "50"}}`)
	long := strings.Repeat("0123456789", 300) // 3,000 characters; the bound is 50 tokens, 200 characters
	in, _ := json.Marshal(map[string]string{"text": long})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__echo", string(in))}},
		scripted.Turn{Text: "echoed"},
	)
	out, errOut, code := e.run("", "-p", "x", "--output-format", "stream-json", "--allowedTools", "mcp__t",
		"--mcp-config", mcpConfig(t, map[string]string{"t": "good", "hang": "hang"}, nil))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if st := serverStatus(initLine(t, out)); st["hang"] != "failed" || st["t"] != "connected" {
		t.Errorf("servers %v", st)
	}
	if !strings.Contains(errOut, "within 1.2s") {
		t.Errorf("the hanging server's failure does not name MCP_TIMEOUT's 1.2s:\n%s", errOut)
	}
	text, _ := mcpToolResults(srv)
	if !strings.Contains(text, "left out of this view") || len(text) > 1000 || !strings.Contains(text, "echo: 0123") {
		t.Errorf("the echo result (%d characters) is not cut to MAX_MCP_OUTPUT_TOKENS:\n%s", len(text), text)
	}
}
