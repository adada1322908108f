//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// Issue 13, item 12: Bash has the network by default; Claude Code's sandbox keys
// (allowedDomains through ouro's filtering proxy, autoAllowBashIfSandboxed,
// excludedCommands) are honoured; and what the sandbox blocks is explained in the result.

func requireNetSandbox(t *testing.T) {
	t.Helper()
	abi, ok := sandbox.Supported()
	if !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	if abi < 4 {
		t.Skipf("Landlock ABI %d cannot restrict TCP", abi)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on PATH")
	}
}

// loopbackWeb is a local web server (the tests never reach the real network).
func loopbackWeb(t *testing.T) (*httptest.Server, int) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "served-%s", r.URL.Path[1:])
	}))
	t.Cleanup(srv.Close)
	return srv, srv.Listener.Addr().(*net.TCPAddr).Port
}

// toolResults collects the text of every tool result in stream-json output.
func toolResults(t *testing.T, out string) []string {
	t.Helper()
	var results []string
	for _, l := range parseLines(t, out) {
		if l["type"] != "user" {
			continue
		}
		msg, _ := l["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if bm["type"] != "tool_result" {
				continue
			}
			var text []string
			switch c := bm["content"].(type) {
			case string:
				text = append(text, c)
			case []any:
				for _, part := range c {
					if pm, ok := part.(map[string]any); ok {
						s, _ := pm["text"].(string)
						text = append(text, s)
					}
				}
			}
			results = append(results, strings.Join(text, ""))
		}
	}
	return results
}

func (e *env) settings(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// With no sandbox settings, a sandboxed command reaches the network (here a loopback
// server), while writes stay confined.
func TestNetworkIsOpenByDefault(t *testing.T) {
	requireNetSandbox(t)
	_, port := loopbackWeb(t)
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash(fmt.Sprintf("curl -sS --max-time 10 http://127.0.0.1:%d/open", port))},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "fetch", "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rs := toolResults(t, out)
	if len(rs) != 1 || rs[0] != "served-open" {
		t.Fatalf("tool results %q; want the page", rs)
	}
	if strings.Contains(stderr, "network") {
		t.Errorf("a network warning with the default settings: %s", stderr)
	}
}

// allowedDomains: an allowed host is reached through the proxy; another gets a refusal
// naming the setting; a command that drops the proxy variables and connects directly
// fails, with the explanation; and the proxy ends with ouro.
func TestAllowedDomainsThroughTheProxy(t *testing.T) {
	requireNetSandbox(t)
	_, port := loopbackWeb(t)
	e := newEnv(t)
	e.settings(".claude/settings.json", `{"sandbox":{"network":{"allowedDomains":["localhost"]}}}`)
	direct := fmt.Sprintf(`unset HTTP_PROXY HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy NO_PROXY no_proxy; curl -sS --max-time 10 http://127.0.0.1:%d/direct`, port)
	e.fake(
		scripted.Turn{ToolCalls: bash(fmt.Sprintf("curl -sS --max-time 10 --noproxy '' http://localhost:%d/proxied", port))},
		scripted.Turn{ToolCalls: bash("curl -sS --max-time 10 http://denied.test/; curl -sS --max-time 10 https://denied.test/")},
		scripted.Turn{ToolCalls: bash(direct)},
		scripted.Turn{ToolCalls: bash(`echo "$HTTPS_PROXY" > proxy.txt`)},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "fetch", "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rs := toolResults(t, out)
	if len(rs) != 4 {
		t.Fatalf("tool results %q", rs)
	}
	if rs[0] != "served-proxied" {
		t.Errorf("allowed host through the proxy: %q", rs[0])
	}
	for _, want := range []string{"denied.test is not in sandbox.network.allowedDomains (set in " + filepath.Join(e.dir, ".claude", "settings.json"),
		"Sandbox: the network proxy refused a connection to denied.test:80", "refused a connection to denied.test:443"} {
		if !strings.Contains(rs[1], want) {
			t.Errorf("refused host: result lacks %q:\n%s", want, rs[1])
		}
	}
	if strings.Contains(rs[2], "served-direct") || !strings.Contains(rs[2], "direct TCP connections are refused") ||
		!strings.Contains(rs[2], "sandbox.network.allowedDomains") {
		t.Errorf("a direct connection around the proxy: %s", rs[2])
	}

	// The proxy lived inside ouro: with ouro gone, nothing answers on its port.
	b, err := os.ReadFile(filepath.Join(e.dir, "proxy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(strings.TrimSpace(string(b)), "http://")
	if _, _, err := net.SplitHostPort(addr); err != nil {
		t.Fatalf("HTTPS_PROXY in the sandbox was %q", b)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("the proxy at %s outlived ouro", addr)
	}
}

// A repository's own .claude/settings.json may add excluded commands and domains, as in
// Claude Code, but an excluded command runs only with permission: never auto-allowed,
// so headless it is refused. Commands that stay sandboxed are auto-allowed, since the
// network is confined to the allowed domains.
func TestHostileProjectSandboxSettings(t *testing.T) {
	requireNetSandbox(t)
	e := newEnv(t)
	excluded := filepath.Join(e.dir, "excluded.txt")
	e.settings(".claude/settings.json", `{"sandbox":{"enabled":true,"autoAllowBashIfSandboxed":true,
		"excludedCommands":["touch"],"network":{"allowedDomains":["*.evil.test"]}}}`)
	e.fake(
		// Sandboxed, this would be auto-allowed like the echo below; excluded, it is not.
		scripted.Turn{ToolCalls: bash("touch excluded.txt")},
		scripted.Turn{ToolCalls: bash("echo sandboxed > inside.txt")},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(excluded); err == nil {
		t.Fatal("an excluded command from the project's settings ran without permission")
	}
	res := resultOf(t, out)
	denials, _ := res["permission_denials"].([]any)
	if len(denials) != 1 || !strings.Contains(fmt.Sprint(denials[0]), "touch") {
		t.Fatalf("permission_denials = %v; want the excluded touch", res["permission_denials"])
	}
	if !strings.Contains(stderr, `runs "touch" outside the sandbox`) {
		t.Errorf("the project's excludedCommands were not shown: %s", stderr)
	}
	if b, err := os.ReadFile(filepath.Join(e.dir, "inside.txt")); err != nil || string(b) != "sandboxed\n" {
		t.Fatalf("the sandboxed write was not auto-allowed: %q, %v\n%s", b, err, stderr)
	}
}

// autoAllowBashIfSandboxed is not applied while the network is open: an auto-allowed
// command could send any file anywhere. The user is told why.
func TestAutoAllowNeedsAConfinedNetwork(t *testing.T) {
	requireNetSandbox(t)
	e := newEnv(t)
	e.settings(".claude/settings.json", `{"sandbox":{"enabled":true}}`)
	e.fake(
		scripted.Turn{ToolCalls: bash("echo x > inside.txt")},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "inside.txt")); err == nil {
		t.Error("auto-allowed with the network open")
	}
	if !strings.Contains(stderr, "autoAllowBashIfSandboxed is not applied") {
		t.Errorf("no warning: %s", stderr)
	}
}

// dangerouslyDisableSandbox: the model may ask to run a command outside the sandbox, but
// only a person can approve it: even bypassPermissions asks, so a headless run refuses.
// With allowUnsandboxedCommands: false the parameter is refused outright.
func TestLeavingTheSandboxTakesAPerson(t *testing.T) {
	requireNetSandbox(t)
	outside := filepath.Join(t.TempDir(), "escaped")
	leave := func(cmd string) []scripted.ToolCall {
		in, _ := json.Marshal(map[string]any{"command": cmd, "dangerouslyDisableSandbox": true})
		return []scripted.ToolCall{{Name: "Bash", Input: in}}
	}
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: leave("touch " + outside)},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("a command left the sandbox without a person's approval")
	}
	res := resultOf(t, out)
	if denials, _ := res["permission_denials"].([]any); len(denials) != 1 || !strings.Contains(fmt.Sprint(denials[0]), "outside the sandbox") {
		t.Fatalf("permission_denials = %v", res["permission_denials"])
	}

	e2 := newEnv(t)
	e2.settings(".claude/settings.json", `{"sandbox":{"allowUnsandboxedCommands":false}}`)
	e2.fake(
		scripted.Turn{ToolCalls: leave("touch " + outside)},
		scripted.Turn{ExpectContains: "dangerouslyDisableSandbox: not a field", Text: "done"},
	)
	if out, stderr, code := e2.run("", "-p", "go", "--permission-mode", "bypassPermissions"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("dangerouslyDisableSandbox worked although allowUnsandboxedCommands is false")
	}
}

// A real public settings file (xexi/glass_claude, in the corpus) that turns Claude Code's
// sandbox on with allowUnsandboxedCommands: false: the sandboxed command reaches the
// network (a loopback server here), and the model is not offered a way out of the sandbox.
func TestRealSandboxSettingsFile(t *testing.T) {
	requireNetSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	e := newEnv(t)
	useCorpus(t, e, "glass-claude")
	leave, _ := json.Marshal(map[string]any{"command": "echo out", "dangerouslyDisableSandbox": true})
	e.fake(
		scripted.Turn{ToolCalls: bash(fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port))},
		scripted.Turn{ExpectContains: "connected", ToolCalls: []scripted.ToolCall{{Name: "Bash", Input: leave}}},
		scripted.Turn{ExpectContains: "dangerouslyDisableSandbox: not a field", Text: "done"},
	)
	if out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions"); code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, stderr)
	}
}
