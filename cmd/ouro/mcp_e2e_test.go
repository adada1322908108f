//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// mcpTestServer is the Go SDK test server of mcpclient/testdata, built by TestMain.
func mcpTestServer(t *testing.T) string { return testProgram(t, "server") }

// mcpConfig is an --mcp-config value with one test server per name → mode.
func mcpConfig(t *testing.T, servers map[string]string, env map[string]string) string {
	bin := mcpTestServer(t)
	doc := map[string]any{}
	for name, mode := range servers {
		doc[name] = map[string]any{"command": bin, "args": []string{mode}, "env": env}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": doc})
	return string(data)
}

func mcall(name, input string) scripted.ToolCall {
	return scripted.ToolCall{Name: name, Input: json.RawMessage(input)}
}

func initLine(t *testing.T, out string) map[string]any {
	t.Helper()
	for _, l := range parseLines(t, out) {
		if l["type"] == "system" && l["subtype"] == "init" {
			return l
		}
	}
	t.Fatalf("no init line in:\n%s", out)
	return nil
}

func resultLine(t *testing.T, out string) map[string]any {
	t.Helper()
	lines := parseLines(t, out)
	return lines[len(lines)-1]
}

func serverStatus(init map[string]any) map[string]string {
	out := map[string]string{}
	for _, s := range init["mcp_servers"].([]any) {
		m := s.(map[string]any)
		out[m["name"].(string)] = m["status"].(string)
	}
	return out
}

func hasTool(init map[string]any, name string) bool {
	for _, n := range init["tools"].([]any) {
		if n == name {
			return true
		}
	}
	return false
}

// toolResults collects the text and block types of every tool result the model was sent.
func mcpToolResults(srv *fakeserver.Server) (text string, types []string) {
	var sb strings.Builder
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			for _, b := range m.Content {
				if b.Type != llm.BlockToolResult {
					continue
				}
				for _, c := range b.Content {
					types = append(types, c.Type)
					sb.WriteString(c.Text + "\n")
				}
			}
		}
	}
	return sb.String(), types
}

func TestMCPToolsE2E(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__echo", `{"text":"hi"}`)}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__image", `{}`)}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__progress", `{}`)}},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "use the server", "--output-format", "stream-json",
		"--mcp-config", mcpConfig(t, map[string]string{"t": "good"}, nil), "--allowedTools", "mcp__t")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	init := initLine(t, out)
	if st := serverStatus(init); st["t"] != "connected" {
		t.Fatalf("mcp_servers %v", init["mcp_servers"])
	}
	if !hasTool(init, "mcp__t__echo") {
		t.Fatalf("tools %v", init["tools"])
	}
	text, types := mcpToolResults(srv)
	if !strings.Contains(text, "echo: hi") || !strings.Contains(text, "progress done") {
		t.Fatalf("tool results: %s", text)
	}
	if !strings.Contains(strings.Join(types, ","), "image") {
		t.Fatalf("no image reached the model: %v", types)
	}
	if !strings.Contains(out, `"tool_progress"`) || !strings.Contains(out, "step 1") {
		t.Fatalf("no progress line in stream-json:\n%s", out)
	}
	var req struct {
		System json.RawMessage `json:"system"`
	}
	_ = json.Unmarshal(srv.Requests()[0].Body, &req)
	if !strings.Contains(string(req.System), "TEST-INSTRUCTIONS-MARKER") {
		t.Fatalf("server instructions are not in the system prompt: %s", req.System)
	}
	if strings.Contains(errOut, "test server starting") {
		t.Fatalf("server stderr reached the terminal: %s", errOut)
	}
	logs, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "mcp-logs", "t.log"))
	if len(logs) != 1 {
		t.Fatalf("no server log")
	}
	if data, _ := os.ReadFile(logs[0]); !strings.Contains(string(data), "test server starting") {
		t.Fatalf("log %q", data)
	}
}

func TestMCPPermissionsE2E(t *testing.T) {
	cfg := func(t *testing.T) string { return mcpConfig(t, map[string]string{"t": "good"}, nil) }
	t.Run("asks, so headless denies", func(t *testing.T) {
		e := newEnv(t)
		srv := e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__echo", `{"text":"hi"}`)}}, scripted.Turn{Text: "ok"})
		out, errOut, _ := e.run("", "-p", "x", "--output-format", "json", "--mcp-config", cfg(t))
		var res struct {
			Denials []struct {
				Tool string `json:"tool_name"`
			} `json:"permission_denials"`
		}
		_ = json.Unmarshal([]byte(out), &res)
		if len(res.Denials) != 1 || res.Denials[0].Tool != "mcp__t__echo" {
			t.Fatalf("no denial:\n%s\n%s", out, errOut)
		}
		if text, _ := mcpToolResults(srv); strings.Contains(text, "echo: hi") {
			t.Fatal("the call ran without approval")
		}
	})
	t.Run("tool rule and wildcard", func(t *testing.T) {
		for _, rule := range []string{"mcp__t__echo", "mcp__t__*"} {
			e := newEnv(t)
			srv := e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__echo", `{"text":"hi"}`)}}, scripted.Turn{Text: "ok"})
			e.run("", "-p", "x", "--mcp-config", cfg(t), "--allowedTools", rule)
			if text, _ := mcpToolResults(srv); !strings.Contains(text, "echo: hi") {
				t.Fatalf("%s did not allow the call: %s", rule, text)
			}
		}
	})
	t.Run("deny hides", func(t *testing.T) {
		e := newEnv(t)
		e.fake(scripted.Turn{Text: "ok"})
		out, _, _ := e.run("", "-p", "x", "--output-format", "stream-json", "--mcp-config", cfg(t),
			"--disallowedTools", "mcp__t__echo", "--allowedTools", "mcp__t")
		init := initLine(t, out)
		if hasTool(init, "mcp__t__echo") || !hasTool(init, "mcp__t__image") {
			t.Fatalf("tools %v", init["tools"])
		}
	})
}

func TestMCPProjectApprovalE2E(t *testing.T) {
	e := newEnv(t)
	bin := mcpTestServer(t)
	proj, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"t": map[string]any{"command": bin, "args": []string{"good"}}}})
	if err := os.WriteFile(filepath.Join(e.dir, ".mcp.json"), proj, 0o644); err != nil {
		t.Fatal(err)
	}
	// The repository tries to approve its own server.
	os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(e.dir, ".claude", "settings.json"), []byte(`{"enableAllProjectMcpServers":true}`), 0o644)
	e.fake(scripted.Turn{Text: "ok"})
	out, errOut, code := e.run("", "-p", "x", "--output-format", "stream-json", "--allowedTools", "mcp__t")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if st := serverStatus(initLine(t, out)); st["t"] != "needs-approval" {
		t.Fatalf("status %v", st)
	}
	if !strings.Contains(errOut, "ouro mcp approve t") || !strings.Contains(errOut, "may not approve its own servers") {
		t.Fatalf("stderr does not say why: %s", errOut)
	}
	if o, er, code := e.run("", "mcp", "approve", "t"); code != 0 || !strings.Contains(o, "Approved t") {
		t.Fatalf("approve: %d %s %s", code, o, er)
	}
	e.fake(scripted.Turn{Text: "ok"})
	out, errOut, _ = e.run("", "-p", "x", "--output-format", "stream-json")
	if st := serverStatus(initLine(t, out)); st["t"] != "connected" {
		t.Fatalf("after approval: %v\n%s", st, errOut)
	}
	// --strict-mcp-config leaves the project's server out.
	e.fake(scripted.Turn{Text: "ok"})
	out, _, _ = e.run("", "-p", "x", "--output-format", "stream-json", "--strict-mcp-config")
	if st := serverStatus(initLine(t, out)); len(st) != 0 {
		t.Fatalf("strict: %v", st)
	}
}

func TestMCPBadServersE2E(t *testing.T) {
	e := newEnv(t)
	e.vars = append(e.vars, "MCP_TIMEOUT=1500")
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__bad__fine", `{}`), mcall("mcp__hang__x", `{}`)}},
		scripted.Turn{Text: "survived"},
	)
	begin := time.Now()
	out, errOut, code := e.run("", "-p", "x", "--output-format", "stream-json", "--allowedTools", "mcp__bad,mcp__hang",
		"--mcp-config", mcpConfig(t, map[string]string{"hang": "hang", "garbage": "garbage", "exit": "exit", "bad": "badschema"}, nil),
		"--mcp-config", `{"mcpServers":{"missing":{"command":"/no/such/server"},"novar":{"command":"x","args":["${OURO_TEST_UNSET_VAR}"]}}}`)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if d := time.Since(begin); d > 20*time.Second {
		t.Fatalf("bad servers held the run for %s", d)
	}
	st := serverStatus(initLine(t, out))
	for _, n := range []string{"hang", "garbage", "exit", "missing", "novar"} {
		if st[n] != "failed" {
			t.Errorf("%s: %q", n, st[n])
		}
	}
	if st["bad"] != "connected" {
		t.Errorf("bad: %q", st["bad"])
	}
	for _, want := range []string{"within 1.5s", "mcp__bad__notobject", "mcp__bad__nocompile", "OURO_TEST_UNSET_VAR", "/no/such/server"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not mention %q:\n%s", want, errOut)
		}
	}
	if r := resultLine(t, out); r["result"] != "survived" {
		t.Fatalf("result %v", r)
	}
}

func TestMCPListChangedE2E(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__grow", `{}`)}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__grown", `{}`)}},
		scripted.Turn{Text: "done"},
	)
	_, errOut, code := e.run("", "-p", "x", "--mcp-config", mcpConfig(t, map[string]string{"t": "good"}, nil), "--allowedTools", "mcp__t")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if text, _ := mcpToolResults(srv); !strings.Contains(text, "grown works") {
		t.Fatalf("the tool added by list_changed was not callable: %s", text)
	}
}

func TestMCPCrashMidCallE2E(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__crash", `{}`)}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__echo", `{"text":"again"}`)}},
		scripted.Turn{Text: "done"},
	)
	_, errOut, code := e.run("", "-p", "x", "--mcp-config", mcpConfig(t, map[string]string{"t": "good"}, nil), "--allowedTools", "mcp__t")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	text, _ := mcpToolResults(srv)
	if !strings.Contains(text, "stopped during the call") {
		t.Fatalf("crash not reported: %s", text)
	}
	if !strings.Contains(text, "mcp__t__echo") || strings.Contains(text, "echo: again") {
		t.Fatalf("a dead server's tool ran: %s", text)
	}
}

func TestMCPKill9E2E(t *testing.T) {
	e := newEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__slow", `{"seconds":60}`)}}, scripted.Turn{Text: "x"})
	c := e.cmd("-p", "x", "--mcp-config", mcpConfig(t, map[string]string{"t": "good"}, map[string]string{"MCP_TEST_PIDFILE": pidFile}), "--allowedTools", "mcp__t")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for pid == 0 && time.Now().Before(deadline) {
		data, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(string(data))
		time.Sleep(50 * time.Millisecond)
	}
	if pid == 0 {
		c.Process.Kill()
		t.Fatal("the server never started")
	}
	time.Sleep(time.Second) // the slow call is under way
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	deadline = time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the server (pid %d) outlived ouro's kill -9", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestMCPCommandsE2E(t *testing.T) {
	e := newEnv(t)
	bin := mcpTestServer(t)
	run := func(args ...string) (string, string) {
		t.Helper()
		o, er, code := e.run("", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, o, er)
		}
		return o, er
	}
	if o, _ := run("mcp", "list"); !strings.Contains(o, "No MCP servers configured") {
		t.Fatal(o)
	}
	run("mcp", "add", "-e", "MCP_TEST_X=1", "t", bin, "good")
	run("mcp", "add", "-s", "user", "broken", bin, "exit")
	run("mcp", "add-json", "-s", "project", "remote", `{"type":"http","url":"http://127.0.0.1:1/mcp"}`)
	o, _ := run("mcp", "list")
	for _, want := range []string{"t: " + bin + " good - ✓ Connected", "broken: " + bin + " exit - ✗ Failed to connect", "remote: http://127.0.0.1:1/mcp (HTTP) - ⚠ Needs approval"} {
		if !strings.Contains(o, want) {
			t.Errorf("list lacks %q:\n%s", want, o)
		}
	}
	o, _ = run("mcp", "get", "t")
	for _, want := range []string{"Scope: Local config", "Status: ✓ Connected", "MCP_TEST_X=1", "mcp__t__echo", `ouro mcp remove "t" -s local`} {
		if !strings.Contains(o, want) {
			t.Errorf("get lacks %q:\n%s", want, o)
		}
	}
	if _, er, code := e.run("", "mcp", "add", "t", bin); code == 0 || !strings.Contains(er, "already exists") {
		t.Fatalf("duplicate add: %d %s", code, er)
	}
	if _, er, code := e.run("", "mcp", "add", "bad/name", bin); code == 0 || !strings.Contains(er, "invalid server name") {
		t.Fatalf("bad name: %d %s", code, er)
	}
	run("mcp", "remove", "t")
	run("mcp", "remove", "broken")
	run("mcp", "remove", "remote", "-s", "project")
	if o, _ := run("mcp", "list"); !strings.Contains(o, "No MCP servers configured") {
		t.Fatal(o)
	}
	if _, er, code := e.run("", "mcp", "get", "t"); code == 0 || !strings.Contains(er, "no MCP server") {
		t.Fatalf("get removed: %s", er)
	}
}

func TestMCPPromptsAndResourcesE2E(t *testing.T) {
	cfg := func(t *testing.T) string { return mcpConfig(t, map[string]string{"t": "good"}, nil) }
	e := newEnv(t)
	e.fake(scripted.Turn{ExpectContains: "Say hello to Bob Smith (PROMPT-MARKER).", Text: "hello"})
	out, errOut, code := e.run("", "-p", "/mcp__t__greet Bob Smith", "--mcp-config", cfg(t))
	if code != 0 {
		t.Fatalf("prompt: exit %d\n%s\n%s", code, out, errOut)
	}
	e.fake(scripted.Turn{ExpectContains: "RESOURCE-MARKER hello from the resource", Text: "read it"})
	out, errOut, code = e.run("", "-p", "summarise @t:test://hello please; mail me at a@b.c", "--mcp-config", cfg(t))
	if code != 0 {
		t.Fatalf("resource: exit %d\n%s\n%s", code, out, errOut)
	}
	e.fake(scripted.Turn{ExpectContains: "could not be attached", Text: "ok"})
	if out, errOut, code = e.run("", "-p", "see @t:test://nope", "--mcp-config", cfg(t)); code != 0 {
		t.Fatalf("missing resource: exit %d\n%s\n%s", code, out, errOut)
	}
	e.fake(scripted.Turn{Text: "never"})
	if _, errOut, code = e.run("", "-p", "/mcp__t__greet", "--mcp-config", cfg(t)); code == 0 || !strings.Contains(errOut+out, `needs its argument "name"`) {
		t.Fatalf("missing argument: %d %s", code, errOut)
	}
}

func TestMCPREPLE2E(t *testing.T) {
	e := newEnv(t)
	bin := mcpTestServer(t)
	proj, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"p": map[string]any{"command": bin, "args": []string{"good"}}}})
	if err := os.WriteFile(filepath.Join(e.dir, ".mcp.json"), proj, 0o644); err != nil {
		t.Fatal(err)
	}
	e.fake(scripted.Turn{Text: "hi there"})
	out, errOut, code := e.run("y\nhello\n/mcp\n/exit\n", "--mcp-config", mcpConfig(t, map[string]string{"t": "good"}, nil))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{`MCP server "p"`, "p (stdio, project): connected", "t (stdio, dynamic): connected", "tools: mcp__t__crash, mcp__t__echo", "prompts: /mcp__t__greet", "log: "} {
		if !strings.Contains(out, want) {
			t.Errorf("REPL output lacks %q:\n%s", want, out)
		}
	}
	data, _ := os.ReadFile(filepath.Join(e.home, ".ouro.json"))
	if !strings.Contains(string(data), `"enabledMcpjsonServers"`) {
		t.Fatalf("approval not saved: %s", data)
	}
}

// In plan mode a trusted server's read-only tool is put to the user like any call (a
// headless run refuses it as needing approval, which an allow rule would give); a tool
// that may write, or a read-only one of a project's server, is refused by the mode.
func TestMCPPlanModeE2E(t *testing.T) {
	e := newEnv(t)
	bin := mcpTestServer(t)
	proj, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"p": map[string]any{"command": bin, "args": []string{"good"}}}})
	os.WriteFile(filepath.Join(e.dir, ".mcp.json"), proj, 0o644)
	if _, er, code := e.run("", "mcp", "approve", "p"); code != 0 {
		t.Fatal(er)
	}
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__echo", `{"text":"planned"}`), mcall("mcp__t__grow", `{}`), mcall("mcp__p__echo", `{"text":"x"}`)}},
		scripted.Turn{Text: "ok"},
	)
	out, _, _ := e.run("", "-p", "x", "--output-format", "json", "--permission-mode", "plan",
		"--mcp-config", mcpConfig(t, map[string]string{"t": "good"}, nil))
	var res struct {
		Denials []struct {
			Tool   string `json:"tool_name"`
			Reason string `json:"reason"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	why := map[string]string{}
	for _, d := range res.Denials {
		why[d.Tool] = d.Reason
	}
	if r := why["mcp__t__echo"]; !strings.Contains(r, "would need approval") || strings.Contains(r, "plan mode") {
		t.Errorf("trusted read-only tool: %q", r)
	}
	for _, n := range []string{"mcp__t__grow", "mcp__p__echo"} {
		if !strings.Contains(why[n], "plan mode allows only read-only actions") {
			t.Errorf("%s: %q", n, why[n])
		}
	}
}

// A server whose name has a space (Claude Code accepts "Sequential Thinking") connects,
// and its tools are named, allowed and called with '_' in its place.
func TestMCPServerNameWithSpaceE2E(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__my_tools__echo", `{"text":"spaced"}`)}},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "use the server", "--output-format", "stream-json",
		"--mcp-config", mcpConfig(t, map[string]string{"my tools": "good"}, nil), "--allowedTools", "mcp__my_tools")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	init := initLine(t, out)
	if st := serverStatus(init); st["my tools"] != "connected" {
		t.Fatalf("mcp_servers %v", init["mcp_servers"])
	}
	if text, _ := mcpToolResults(srv); !strings.Contains(text, "echo: spaced") {
		t.Fatalf("tool results: %s", text)
	}
}
