//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

// A command sandbox.excludedCommands names runs outside the sandbox; the others stay in.
func TestBashExcludedCommandsRunOutside(t *testing.T) {
	ws, outside := realDir(t, t.TempDir()), realDir(t, t.TempDir())
	b := sandboxed(t, ws, true, settings.SandboxNetwork{})
	b.cfg.Unsandboxed = func(cmd string) bool { return strings.HasPrefix(cmd, "touch ") }

	target := filepath.Join(outside, "made-outside")
	if res := runBash(t, b, "touch "+target, 0); res.IsError {
		t.Fatalf("excluded command: %q", res.Text())
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the excluded command did not run outside the sandbox: %v", err)
	}
	other := filepath.Join(outside, "not-made")
	res := runBash(t, b, "echo x > "+other, 0)
	if !res.IsError || !strings.Contains(res.Text(), "sandbox.filesystem.allowWrite") {
		t.Errorf("a command not excluded: %q", res.Text())
	}
}

// What the proxy refused is in the result even when the command exits 0 (curl without
// -f), with the setting that would allow it.
func TestBashReportsProxyRefusals(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on PATH")
	}
	if abi, _ := sandbox.Supported(); abi < 4 {
		t.Skipf("Landlock ABI %d cannot restrict TCP", abi)
	}
	ws := realDir(t, t.TempDir())
	b := sandboxed(t, ws, true, settings.SandboxNetwork{DomainsSet: true, AllowedDomains: []string{"allowed.test"}})
	px, _, err := sandbox.StartProxy(sandbox.ProxyConfig{Allowed: []string{"allowed.test"}, Sources: []string{"/p/.claude/settings.json"}})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	pol := b.cfg.Sandbox.WithProxy(px)
	b.cfg.Sandbox, b.sb = &pol, &pol

	res := runBash(t, b, "curl -s http://denied.test/; echo; echo done", 0)
	text := res.Text()
	for _, want := range []string{"denied.test is not in sandbox.network.allowedDomains (set in /p/.claude/settings.json)",
		"Sandbox: the network proxy refused a connection to denied.test:80", "done"} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	if res.IsError {
		t.Errorf("exit 0 reported as an error: %s", text)
	}
	// The next command does not repeat an old refusal.
	if res := runBash(t, b, "echo quiet", 0); res.Text() != "quiet" {
		t.Errorf("old refusal repeated: %q", res.Text())
	}
}

// dangerouslyDisableSandbox is offered only with a sandbox and AllowUnsandboxed; a call
// that sets it runs outside (the gate has put it to a person by then).
func TestBashDangerouslyDisableSandbox(t *testing.T) {
	ws, outside := realDir(t, t.TempDir()), realDir(t, t.TempDir())
	b := sandboxed(t, ws, true, settings.SandboxNetwork{})
	if strings.Contains(string(b.Spec().InputSchema), "dangerouslyDisableSandbox") {
		t.Error("offered without AllowUnsandboxed")
	}
	target := filepath.Join(outside, "made")
	in, _ := json.Marshal(map[string]any{"command": "touch " + target, "dangerouslyDisableSandbox": true})
	if _, err := b.Run(context.Background(), tool.ExecInput(in)); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("dangerouslyDisableSandbox accepted while not offered: %v", err)
	}

	b = NewBash(BashConfig{Dir: ws, Sandbox: b.cfg.Sandbox, AllowUnsandboxed: true, KillGrace: b.cfg.KillGrace})
	if !strings.Contains(string(b.Spec().InputSchema), "dangerouslyDisableSandbox") {
		t.Error("not offered with AllowUnsandboxed")
	}
	res, err := b.Run(context.Background(), tool.ExecInput(in))
	if err != nil || res.IsError {
		t.Fatalf("%v %q", err, res.Text())
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the command did not run outside the sandbox: %v", err)
	}
	res = runBash(t, b, "touch "+filepath.Join(outside, "blocked"), 0)
	if !strings.Contains(res.Text(), "retried with dangerouslyDisableSandbox: true; the user is asked first") {
		t.Errorf("the sandbox note does not mention the way out: %q", res.Text())
	}
}
