//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// markedPIDs are the processes whose environment holds mark.
func markedPIDs(mark string) []int {
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if bytes.Contains(env, []byte(mark)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// The real server-everything killed (kill -9) in the middle of a long call: the call
// returns at once with an error that says what happened, the server is marked failed
// and its tools leave the session before the next request,
// the run goes on to its end, and nothing of the server is left.
func TestMCPNodeServerCrashMidCallE2E(t *testing.T) {
	dir := mcpNode(t)
	e := newEnv(t)
	mark := "OURO_TEST_MARK=crash-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	k, v, _ := strings.Cut(mark, "=")
	node := filepath.Join(dir, "node", "bin", "node")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"ev": map[string]any{"command": node, "args": []string{filepath.Join(dir, "pkgs", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"},
			"env": map[string]string{k: v}},
	}})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__ev__trigger-long-running-operation", `{"duration":60,"steps":60}`)}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__ev__echo", `{"message":"still there?"}`)}},
		scripted.Turn{Text: "done"},
	)
	c := e.cmd("-p", "run it", "--output-format", "stream-json", "--mcp-config", string(cfg), "--allowedTools", "mcp__ev")
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	c.Stderr = &errOut
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	var lines []string
	killed := time.Time{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if killed.IsZero() && strings.Contains(sc.Text(), `"tool_progress"`) && strings.Contains(sc.Text(), "trigger-long-running-operation") {
			pids := markedPIDs(mark)
			if len(pids) == 0 {
				t.Fatal("the server's process is not to be found")
			}
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			killed = time.Now()
		}
	}
	if err := c.Wait(); err != nil {
		t.Fatalf("ouro: %v\n%s\n%s", err, strings.Join(lines, "\n"), errOut.String())
	}
	if killed.IsZero() {
		t.Fatalf("the long call never reported progress:\n%s", strings.Join(lines, "\n"))
	}
	if d := time.Since(killed); d > 30*time.Second {
		t.Fatalf("the run took %v after the kill: the call waited on a dead server", d)
	}
	text, _ := mcpToolResults(srv)
	if !strings.Contains(text, `MCP server "ev" stopped during the call to mcp__ev__trigger-long-running-operation`) {
		t.Fatalf("the crash is not reported clearly:\n%s", text)
	}
	// The crash report told the model the tools are gone; the next request no longer
	// offers them.
	if !strings.Contains(text, `Unknown tool "mcp__ev__echo"`) || strings.Contains(text, "Echo: still there?") {
		t.Fatalf("the dead server's tool ran, or its status is unclear:\n%s", text)
	}
	if res := resultLine(t, strings.Join(lines, "\n")); res["subtype"] != "success" {
		t.Fatalf("result %v", res)
	}
	if left := markedPIDs(mark); len(left) != 0 {
		t.Fatalf("processes left: %v", left)
	}
}

// server-everything's elicitation form (text, email, date, boolean, numbers, single and
// multiple choices, titled and not): answered field by field in the REPL, the rest left
// to their defaults; declined in -p.
func TestMCPNodeElicitationE2E(t *testing.T) {
	dir := mcpNode(t)
	e := newEnv(t)
	node := filepath.Join(dir, "node", "bin", "node")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"ev": map[string]any{"command": node, "args": []string{filepath.Join(dir, "pkgs", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}},
	}})
	ask := scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__ev__trigger-elicitation-request", `{}`)}}
	srv := e.fake(ask, scripted.Turn{Text: "thanks"})
	// name first (required), then the others by name: birthdate, check, email, and
	// Enter for the nine left.
	input := "fill the form\ny\nAda Lovelace\n1815-13-40\n1815-12-10\ny\nnot-an-address\nada@example.com\n" + strings.Repeat("\n", 9) + "/exit\n"
	out, errOut, code := e.run(input, "--mcp-config", string(cfg), "--allowedTools", "mcp__ev")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"is not a date (YYYY-MM-DD)", "is not an email address", "1) fish-1 — Tuna"} {
		if !strings.Contains(out, want) {
			t.Errorf("REPL output lacks %q:\n%s", want, out)
		}
	}
	text, _ := mcpToolResults(srv)
	for _, want := range []string{"User provided the requested information", "- Name: Ada Lovelace", "- Birthdate: 1815-12-10",
		"- Email: ada@example.com", "- Agreed to terms: true"} {
		if !strings.Contains(text, want) {
			t.Errorf("tool result lacks %q:\n%s\n%s", want, text, out)
		}
	}

	srv = e.fake(ask, scripted.Turn{Text: "ok"})
	out, errOut, code = e.run("", "-p", "fill the form", "--output-format", "stream-json", "--mcp-config", string(cfg), "--allowedTools", "mcp__ev")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if text, _ := mcpToolResults(srv); !strings.Contains(text, "User declined") || !strings.Contains(out, `"subtype":"mcp_elicitation"`) {
		t.Fatalf("headless: %s\n%s", text, out)
	}
}

// The auth scenarios outside the core suite (the 2025-03-26 fallbacks, the drafts and
// the extensions), one by one against ouro's conformance client; those it does not pass
// are in the baseline, each with its reason.
func TestMCPConformanceAuthScenarios(t *testing.T) {
	dir := mcpNode(t)
	client := testProgram(t, "conformance")
	scenarios := []string{
		"auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
		"auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
		"auth/client-credentials-basic", "auth/client-credentials-jwt", "auth/cross-app-access-complete-flow",
	}
	type result struct {
		scenario, out string
		err           error
	}
	results := make(chan result, len(scenarios))
	for _, sc := range scenarios {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			out, err := nodeCmd(t, dir, ctx, conformance(dir), "client", "--scenario", sc, "--command", client,
				"--expected-failures", baseline(t), "-o", t.TempDir()).CombinedOutput()
			results <- result{sc, string(out), err}
		}()
	}
	for range scenarios {
		r := <-results
		if r.err != nil || !strings.Contains(r.out, "Baseline check passed") {
			t.Errorf("%s: %v\n%s", r.scenario, r.err, tail(r.out, 3000))
		}
	}
}
