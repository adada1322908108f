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

// realMarket is Anthropic's public marketplace with its fakechat plugin (testdata SOURCES).
const realMarket = "testdata/plugins/claude-plugins-official"

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		copyFile(t, p, filepath.Join(dst, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fakeBun puts ouro's Go test MCP server on PATH as `bun`, the program fakechat's real
// .mcp.json runs, in the mode that reports how it was started.
func fakeBun(t *testing.T, e *env) {
	bin := t.TempDir()
	if err := os.Symlink(mcpTestServer(t), filepath.Join(bin, "bun")); err != nil {
		t.Fatal(err)
	}
	e.vars = append(e.vars, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "MCP_TEST_MODE=argv")
}

// Issue 30 item 3: a real plugin's MCP server (fakechat's .mcp.json, `bun run --cwd
// ${CLAUDE_PLUGIN_ROOT} ...`) starts as plugin:fakechat:fakechat once approved, and the
// model calls its tool as mcp__plugin_fakechat_fakechat__<tool>. The plugin folder's name
// is full of shell syntax: it reaches the server as one argument, as text.
func TestPluginMCPServerE2E(t *testing.T) {
	e := newEnv(t)
	fakeBun(t, e)
	root := filepath.Join(t.TempDir(), "fc; touch PWNED $(touch PWNED2) `touch PWNED3`")
	copyTree(t, filepath.Join(realMarket, "external_plugins", "fakechat"), root)
	e.fake(scripted.Turn{Text: "ok"})
	out, errOut, code := e.run("", "-p", "x", "--output-format", "stream-json", "--plugin-dir", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if st := serverStatus(initLine(t, out)); st["plugin:fakechat:fakechat"] != "needs-approval" {
		t.Fatalf("an unapproved plugin server: %v\n%s", st, errOut)
	}
	if !strings.Contains(errOut, "ouro mcp approve plugin:fakechat:fakechat") {
		t.Fatalf("stderr does not say how to approve: %s", errOut)
	}
	if o, er, code := e.run("", "mcp", "approve", "--plugin-dir", root, "plugin:fakechat:fakechat"); code != 0 || !strings.Contains(o, "Approved plugin:fakechat:fakechat") {
		t.Fatalf("approve: %d %s %s", code, o, er)
	}
	srv := e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__plugin_fakechat_fakechat__argv", `{}`)}}, scripted.Turn{Text: "done"})
	out, errOut, code = e.run("", "-p", "x", "--output-format", "stream-json", "--plugin-dir", root,
		"--allowedTools", "mcp__plugin_fakechat_fakechat")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	init := initLine(t, out)
	if st := serverStatus(init); st["plugin:fakechat:fakechat"] != "connected" || !hasTool(init, "mcp__plugin_fakechat_fakechat__argv") {
		t.Fatalf("after approval: %v %v\n%s", st, init["tools"], errOut)
	}
	text, _ := mcpToolResults(srv)
	_, js, _ := strings.Cut(text, "argv: ")
	var got struct {
		Args []string
		Root string `json:"CLAUDE_PLUGIN_ROOT"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(js)), &got); err != nil {
		t.Fatalf("tool result %q: %v", text, err)
	}
	want := []string{"run", "--cwd", root, "--shell=bun", "--silent", "start"}
	if strings.Join(got.Args, "\x00") != strings.Join(want, "\x00") || got.Root != root {
		t.Fatalf("the server got %q (CLAUDE_PLUGIN_ROOT %q), want %q", got.Args, got.Root, want)
	}
	for _, dir := range []string{e.dir, filepath.Dir(root), e.home} {
		for _, f := range []string{"PWNED", "PWNED2", "PWNED3"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Fatalf("the plugin's path ran as shell: %s/%s", dir, f)
			}
		}
	}
	// Another definition in the same folder is a new server: asked again.
	mj := filepath.Join(root, ".mcp.json")
	data, _ := os.ReadFile(mj)
	os.WriteFile(mj, []byte(strings.Replace(string(data), `"--silent", `, "", 1)), 0o644)
	e.fake(scripted.Turn{Text: "ok"})
	out, errOut, _ = e.run("", "-p", "x", "--output-format", "stream-json", "--plugin-dir", root)
	if st := serverStatus(initLine(t, out)); st["plugin:fakechat:fakechat"] != "needs-approval" || !strings.Contains(errOut, "arguments changed") {
		t.Fatalf("a changed definition: %v\n%s", st, errOut)
	}
}

// Attack: a plugin whose manifest points its MCP servers outside its folder is skipped,
// its server never started, and the session says why.
func TestPluginMCPPathEscapeE2E(t *testing.T) {
	e := newEnv(t)
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "outside.json"), `{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch PWNED"]}}}`)
	plug := filepath.Join(base, "plug")
	writeFile(t, filepath.Join(plug, ".claude-plugin", "plugin.json"), `{"name": "escaper", "mcpServers": "../outside.json"}`)
	e.fake(scripted.Turn{Text: "ok"})
	out, errOut, code := e.run("", "-p", "x", "--output-format", "stream-json", "--plugin-dir", plug)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if st := serverStatus(initLine(t, out)); len(st) != 0 {
		t.Fatalf("servers %v", st)
	}
	if !strings.Contains(errOut, "leaves the plugin's folder") {
		t.Fatalf("stderr: %s", errOut)
	}
}
