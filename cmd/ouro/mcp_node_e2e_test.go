//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// These tests need Node 22 and the MCP npm packages that .ci/mcp-node installs into a
// cache folder (never the machine's node). Without them they skip, saying so; .ci/run
// installs them and sets OURO_MCP_NODE_REQUIRED, which makes a missing install a failure.

// mcpNode returns the folder .ci/mcp-node filled.
func mcpNode(t *testing.T) string {
	t.Helper()
	return installed(t, "runs Node MCP servers and the conformance suite", "OURO_MCP_NODE_DIR", "mcp-node",
		".ci/mcp-node", "Node 22 and the MCP npm packages", "OURO_MCP_NODE_REQUIRED")
}

// installed returns the cache folder an install script of the project filled: $envDir,
// else ${XDG_CACHE_HOME:-~/.cache}/ouro/name. Without it the test skips, saying which
// script to run, or fails where required (the variable .ci/run sets) says it must run.
func installed(t *testing.T, short, envDir, name, script, what, required string) string {
	t.Helper()
	if testing.Short() {
		t.Skip(short)
	}
	dir := os.Getenv(envDir)
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "ouro", name)
	}
	if _, err := os.Stat(filepath.Join(dir, "ready")); err != nil {
		msg := "needs " + what + ": run " + script + " first (it installs them into " + dir + ")"
		if os.Getenv(required) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

func nodeCmd(t *testing.T, dir string, ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, filepath.Join(dir, "node", "bin", "node"), args...)
	c.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "node", "bin")+":"+os.Getenv("PATH"))
	c.Dir = t.TempDir()
	return c
}

func conformance(dir string) string {
	return filepath.Join(dir, "pkgs", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
}

func baseline(t *testing.T) string {
	p, err := filepath.Abs("../../.ci/mcp-conformance-baseline.yml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMCPConformanceClientSuite(t *testing.T) {
	dir := mcpNode(t)
	client := testProgram(t, "conformance")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := nodeCmd(t, dir, ctx, conformance(dir), "client", "--suite", "core", "--command", client,
		"--expected-failures", baseline(t), "-o", t.TempDir())
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Baseline check passed") {
		t.Fatalf("client core suite: %v\n%s", err, tail(string(out), 4000))
	}
	for _, want := range []string{"✓ initialize", "✓ tools_call", "✓ sse-retry"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%q did not pass:\n%s", want, tail(string(out), 4000))
		}
	}
}

func TestMCPConformanceServerSuite(t *testing.T) {
	dir := mcpNode(t)
	e := newEnv(t)
	serve := e.cmd("mcp", "serve", "--http", "127.0.0.1:0")
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { serve.Process.Kill(); serve.Wait() }()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`listening on (\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(30 * time.Second):
		t.Fatal("ouro mcp serve --http never said where it listens")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := nodeCmd(t, dir, ctx, conformance(dir), "server", "--url", url,
		"--expected-failures", baseline(t), "-o", t.TempDir()).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Baseline check passed") {
		t.Fatalf("server suite: %v\n%s", err, tail(string(out), 4000))
	}
	for _, want := range []string{"✓ server-initialize", "✓ ping", "✓ tools-list", "✓ dns-rebinding-protection"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%q did not pass:\n%s", want, tail(string(out), 4000))
		}
	}
}

func TestMCPRealServersE2E(t *testing.T) {
	dir := mcpNode(t)
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "notes.txt"), []byte("FS-MARKER in the file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(dir, "node", "bin", "node")
	mods := filepath.Join(dir, "pkgs", "node_modules", "@modelcontextprotocol")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"ev": map[string]any{"command": node, "args": []string{filepath.Join(mods, "server-everything", "dist", "index.js"), "stdio"}},
		"fs": map[string]any{"command": node, "args": []string{filepath.Join(mods, "server-filesystem", "dist", "index.js"), e.dir}},
	}})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__ev__echo", `{"message":"EV-MARKER"}`), mcall("mcp__ev__get-tiny-image", `{}`)}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__fs__list_directory", `{"path":"`+e.dir+`"}`), mcall("mcp__fs__read_text_file", `{"path":"`+filepath.Join(e.dir, "notes.txt")+`"}`)}},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "use them", "--output-format", "stream-json", "--mcp-config", string(cfg), "--allowedTools", "mcp__ev,mcp__fs")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, tail(out, 3000), errOut)
	}
	if st := serverStatus(initLine(t, out)); st["ev"] != "connected" || st["fs"] != "connected" {
		t.Fatalf("status %v\n%s", st, errOut)
	}
	text, types := mcpToolResults(srv)
	for _, want := range []string{"EV-MARKER", "notes.txt", "FS-MARKER in the file"} {
		if !strings.Contains(text, want) {
			t.Errorf("tool results lack %q:\n%s", want, tail(text, 3000))
		}
	}
	if !strings.Contains(strings.Join(types, ","), "image") {
		t.Errorf("get-tiny-image's image did not reach the model: %v", types)
	}

	// A prompt as a slash command, and a resource by reference.
	e.fake(scripted.Turn{ExpectContains: "simple prompt", Text: "ok"})
	if out, errOut, code := e.run("", "-p", "/mcp__ev__simple-prompt", "--mcp-config", string(cfg)); code != 0 {
		t.Fatalf("prompt: exit %d\n%s\n%s", code, out, errOut)
	}
	e.fake(scripted.Turn{ExpectContains: "Resource 1: This is a plaintext resource", Text: "ok"})
	if out, errOut, code := e.run("", "-p", "read @ev:demo://resource/dynamic/text/1", "--mcp-config", string(cfg)); code != 0 {
		t.Fatalf("resource: exit %d\n%s\n%s", code, out, errOut)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
