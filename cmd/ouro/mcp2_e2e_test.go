//go:build unix

package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/llm/scripted"
)

// A server asking for input during a call (elicitation) in the REPL: the user sees the
// message (without the server's escape sequences), fills in the form, each answer checked
// against the field's schema and asked again until it fits; a second request is declined.
func TestMCPElicitationREPLE2E(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__survey", `{}`)}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__survey", `{}`)}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__survey", `{}`)}},
		scripted.Turn{Text: "thanks"},
	)
	input := strings.Join([]string{
		"ask me",
		"maybe", "y", // not an answer, then yes
		"x", "Ada", // name: too short, then fine
		"-1", "36", // age: under the minimum, then fine
		"purple", "2", // color: not a choice, then the second one
		"",                   // subscribe: its default
		"n",                  // the second request: declined
		"y", "Bo", "/cancel", // the third: cancelled at a field
		"/exit",
	}, "\n") + "\n"
	out, errOut, code := e.run(input, "--mcp-config", mcpConfig(t, map[string]string{"t": "good"}, nil), "--allowedTools", "mcp__t")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{`The MCP server "t" asks for your input`, "Who are you? (ELICIT-MARKER)",
		"name — Your name (text; required)", "at least 2 characters", "less than the minimum 0",
		`"purple" is not one of the choices`, "2) green", "subscribe (yes/no; Enter for false)"} {
		if !strings.Contains(out, want) {
			t.Errorf("REPL output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[31m") {
		t.Errorf("the server's escape sequence reached the terminal")
	}
	text, _ := mcpToolResults(srv)
	for _, want := range []string{`answer: accept {"age":36,"color":"green","name":"Ada","subscribe":false}`,
		"answer: decline null", "answer: cancel null"} {
		if !strings.Contains(text, want) {
			t.Errorf("tool results lack %q:\n%s", want, text)
		}
	}
}

// Headless, nobody can answer: the request is declined, the run goes on, and the
// request shows on stderr and as a stream-json event.
func TestMCPElicitationHeadlessE2E(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__survey", `{}`)}},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "ask", "--output-format", "stream-json",
		"--mcp-config", mcpConfig(t, map[string]string{"t": "good"}, nil), "--allowedTools", "mcp__t")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if text, _ := mcpToolResults(srv); !strings.Contains(text, "answer: decline") {
		t.Fatalf("tool results: %s", text)
	}
	var ev map[string]any
	for _, l := range parseLines(t, out) {
		if l["type"] == "system" && l["subtype"] == "mcp_elicitation" {
			ev = l
		}
	}
	if ev == nil || ev["server"] != "t" || ev["action"] != "decline" || !strings.Contains(ev["reason"].(string), "headless") ||
		!strings.Contains(ev["message"].(string), "ELICIT-MARKER") || len(ev["fields"].([]any)) != 4 {
		t.Fatalf("elicitation event %v in:\n%s", ev, out)
	}
	if !strings.Contains(errOut, "ouro: mcp: t asked for input") {
		t.Fatalf("stderr: %s", errOut)
	}
}

// SIGTERM ends `ouro mcp serve --http` at once, though a client holds its listening
// stream open and a call is under way; the call's process does not outlive it.
func TestMCPServeHTTPSigtermE2E(t *testing.T) {
	e := newEnv(t)
	serve := e.cmd("mcp", "serve", "--http", "127.0.0.1:0", "--allowedTools", "Bash")
	// A plain pipe: the process's end is known when it exits, whoever else holds the pipe.
	stderr, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	serve.Stderr = w
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	defer func() {
		select {
		case <-exited:
		default:
			serve.Process.Kill()
		}
	}()
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
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "sleep 31.25"}})
		called <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for exec.Command("pgrep", "-f", "sleep 31.25").Run() != nil {
		if time.Now().After(deadline) {
			t.Fatal("the call never started its command")
		}
		time.Sleep(50 * time.Millisecond)
	}
	start := time.Now()
	serve.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		t.Logf("ended %v after SIGTERM", time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatal("ouro mcp serve --http still runs 10 s after SIGTERM")
	}
	select {
	case <-called:
	case <-time.After(10 * time.Second):
		t.Fatal("the client's call never ended")
	}
	deadline = time.Now().Add(5 * time.Second)
	for exec.Command("pgrep", "-f", "sleep 31.25").Run() == nil {
		if time.Now().After(deadline) {
			exec.Command("pkill", "-f", "sleep 31.25").Run()
			t.Fatal("the call's command outlived the server")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A server that crashes mid-call in the REPL: the call says so, /mcp shows it failed
// and why, its tools leave the session; /mcp reconnect starts it again (the user's
// choice: ouro never restarts a crashing server by itself), its tools come back, and
// no server process outlives the session.
func TestMCPCrashReconnectREPLE2E(t *testing.T) {
	e := newEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__crash", `{}`)}},
		scripted.Turn{Text: "it crashed"},
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__echo", `{"text":"back again"}`)}},
		scripted.Turn{Text: "ok"},
	)
	out, errOut, code := e.run("crash it\n/mcp\n/mcp reconnect t\n/mcp reconnect nope\necho now\n/exit\n",
		"--mcp-config", mcpConfig(t, map[string]string{"t": "good"}, map[string]string{"MCP_TEST_PIDFILE": pidFile}), "--allowedTools", "mcp__t")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// Why it failed: whichever saw it first, the call or the connection's end.
	if !regexp.MustCompile(`error: the server (stopped during a call to mcp__t__crash|disconnected: exit status 7)`).MatchString(out) {
		t.Errorf("/mcp does not say why the server failed:\n%s", out)
	}
	for _, want := range []string{"t (stdio, dynamic): failed", "t: connected (7 tools)"} {
		if !strings.Contains(out, want) {
			t.Errorf("REPL output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, `there is no MCP server "nope"`) {
		t.Errorf("reconnecting an unknown server: %s", errOut)
	}
	text, _ := mcpToolResults(srv)
	if !strings.Contains(text, `MCP server "t" stopped during the call to mcp__t__crash`) || !strings.Contains(text, "echo: back again") {
		t.Fatalf("tool results:\n%s", text)
	}
	data, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(string(data))
	deadline := time.Now().Add(5 * time.Second)
	for pid > 0 && syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the restarted server (pid %d) outlived the session", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
