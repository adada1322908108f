//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// gitMarket makes a git repository holding the real marketplace.json and the fakechat
// plugin (testdata SOURCES), and returns it with its commit.
func gitMarket(t *testing.T) (string, string) {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "market")
	copyTree(t, realMarket, repo)
	git := func(args ...string) string {
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		c.Dir = repo
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "marketplace")
	return repo, git("rev-parse", "HEAD")
}

func (e *env) ok(args ...string) string {
	e.t.Helper()
	out, errOut, code := e.run("", args...)
	if code != 0 {
		e.t.Fatalf("ouro %v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	return out
}

// Issue 30 item 4: a marketplace in a local git repository, added, its plugin installed
// pinned to the marketplace's commit and enabled; a session loads it like a --plugin-dir
// one (its MCP server, once approved, answers the model); disabled, it is not loaded.
func TestPluginMarketplaceInstallE2E(t *testing.T) {
	e := newEnv(t)
	fakeBun(t, e)
	repo, commit := gitMarket(t)
	if out := e.ok("plugin", "marketplace", "add", "file://"+repo); !strings.Contains(out, "Added marketplace claude-plugins-official") {
		t.Fatalf("add: %s", out)
	}
	if out := e.ok("plugin", "marketplace", "list"); !strings.Contains(out, "claude-plugins-official: file://"+repo) || !strings.Contains(out, commit[:12]) {
		t.Fatalf("list: %s", out)
	}
	out := e.ok("plugin", "install", "fakechat@claude-plugins-official")
	if !strings.Contains(out, "commit "+commit) || !strings.Contains(out, filepath.Join(e.home, ".ouro", "plugins", "cache")) ||
		!strings.Contains(out, "Its MCP server plugin:fakechat:fakechat starts once you approve it") {
		t.Fatalf("install: %s", out)
	}
	if out := e.ok("plugin", "list"); !strings.Contains(out, "fakechat@claude-plugins-official 0.0.1: enabled, commit "+commit[:12]) {
		t.Fatalf("plugin list: %s", out)
	}
	for args, want := range map[string]string{
		"plugin install nope@claude-plugins-official": `plugin "nope" is not in marketplace "claude-plugins-official" (it lists: 42crunch-api-security-testing`,
		"plugin install fakechat@elsewhere":           `unknown marketplace "elsewhere" (known: claude-plugins-official)`,
		"plugin enable other@claude-plugins-official": `is not installed`,
		"plugin marketplace add ext::sh":              `remote helper`,
	} {
		if _, errOut, code := e.run("", strings.Fields(args)...); code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %s; want %q", args, code, errOut, want)
		}
	}
	if out := e.ok("mcp", "approve", "plugin:fakechat:fakechat"); !strings.Contains(out, "Approved plugin:fakechat:fakechat") {
		t.Fatalf("approve: %s", out)
	}
	srv := e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__plugin_fakechat_fakechat__argv", `{}`)}}, scripted.Turn{Text: "done"})
	out, errOut, code := e.run("", "-p", "x", "--output-format", "stream-json", "--allowedTools", "mcp__plugin_fakechat_fakechat")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if st := serverStatus(initLine(t, out)); st["plugin:fakechat:fakechat"] != "connected" {
		t.Fatalf("status %v\n%s", st, errOut)
	}
	text, _ := mcpToolResults(srv)
	installed := filepath.Join(e.home, ".ouro", "plugins", "cache", "claude-plugins-official", "fakechat", commit[:12])
	if !strings.Contains(text, `"--cwd","`+installed+`"`) {
		t.Fatalf("the server did not run from the installed copy %s: %s", installed, text)
	}
	// ouro doctor shows the installed plugin as a session loads it, and no longer names
	// the marketplace keys as settings it does not honour.
	if doc, _, _ := e.run("", "doctor"); !strings.Contains(doc, installed) || strings.Contains(doc, "not honoured by ouro: enabledPlugins") {
		t.Fatalf("doctor does not show the installed plugin %s:\n%s", installed, doc)
	}
	e.ok("plugin", "disable", "fakechat@claude-plugins-official")
	e.fake(scripted.Turn{Text: "ok"})
	out, _, _ = e.run("", "-p", "x", "--output-format", "stream-json")
	if st := serverStatus(initLine(t, out)); len(st) != 0 {
		t.Fatalf("a disabled plugin loaded: %v", st)
	}
	e.ok("plugin", "uninstall", "fakechat@claude-plugins-official")
	if _, err := os.Stat(installed); err == nil {
		t.Fatal("uninstall left the copy")
	}
	if out := e.ok("plugin", "marketplace", "remove", "claude-plugins-official"); !strings.Contains(out, "Removed") {
		t.Fatalf("remove: %s", out)
	}
}

// A marketplace the settings declare (extraKnownMarketplaces) is added at its first
// install; managed strictKnownMarketplaces refuses every marketplace it does not list.
func TestPluginMarketplaceSettingsE2E(t *testing.T) {
	e := newEnv(t)
	repo, commit := gitMarket(t)
	writeFile(t, filepath.Join(e.home, ".ouro", "settings.json"),
		`{"extraKnownMarketplaces": {"claude-plugins-official": {"source": {"source": "git", "url": "file://`+repo+`"}}}}`)
	managed := filepath.Join(t.TempDir(), "managed.json")
	writeFile(t, managed, `{"strictKnownMarketplaces": [{"source": "github", "repo": "acme/plugins"}]}`)
	e.vars = append(e.vars, "OURO_MANAGED_SETTINGS="+managed)
	_, errOut, code := e.run("", "plugin", "install", "fakechat@claude-plugins-official")
	if code == 0 || !strings.Contains(errOut, "strictKnownMarketplaces") || !strings.Contains(errOut, managed) {
		t.Fatalf("strict: exit %d %s", code, errOut)
	}
	if _, errOut, code := e.run("", "plugin", "marketplace", "add", "file://"+repo); code == 0 || !strings.Contains(errOut, "strictKnownMarketplaces") {
		t.Fatalf("strict add: exit %d %s", code, errOut)
	}
	writeFile(t, managed, `{"strictKnownMarketplaces": [{"source": "git", "url": "file://`+repo+`"}]}`)
	if out := e.ok("plugin", "install", "fakechat@claude-plugins-official"); !strings.Contains(out, commit) {
		t.Fatalf("install: %s", out)
	}
	if out := e.ok("plugin", "marketplace", "list"); !strings.Contains(out, "claude-plugins-official: file://"+repo) {
		t.Fatalf("list: %s", out)
	}
}

// Attack: a session that rewrites the record of installed plugins (to load a folder of
// its choosing next time) loads no installed plugin in the next session until a person
// reviews the file.
func TestAgentWrittenInstalledPluginsLoadNothingE2E(t *testing.T) {
	e := newEnv(t)
	fakeBun(t, e)
	repo, _ := gitMarket(t)
	e.ok("plugin", "marketplace", "add", "file://"+repo)
	e.ok("plugin", "install", "fakechat@claude-plugins-official")
	e.ok("mcp", "approve", "plugin:fakechat:fakechat")
	rec := filepath.Join(e.home, ".ouro", "plugins", "installed_plugins.json")
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]string{"file_path": rec, "content": string(data) + "\n"})
	rd, _ := json.Marshal(map[string]string{"file_path": rec})
	srv := e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Read", Input: rd}}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: in}}}, scripted.Turn{Text: "Saved."})
	if out, errOut, code := e.run("", "-p", "x", "--permission-mode", "bypassPermissions"); code != 0 {
		t.Fatalf("session 1: exit %d\n%s\n%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(rec); string(got) != string(data)+"\n" {
		text, _ := mcpToolResults(srv)
		t.Fatalf("the session did not write %s: %s", rec, text)
	}
	e.fake(scripted.Turn{Text: "ok"})
	out, errOut, _ := e.run("", "-p", "x", "--output-format", "stream-json")
	if st := serverStatus(initLine(t, out)); len(st) != 0 || !strings.Contains(errOut, "no installed plugin is loaded") {
		t.Fatalf("an agent-written record loaded plugins: %v\n%s", st, errOut)
	}
}

// An installed plugin's hooks run with CLAUDE_PLUGIN_ROOT at its installed copy; under
// managed allowManagedHooksOnly they run only when a managed file's enabledPlugins
// enables the plugin, as in Claude Code.
func TestInstalledPluginHooksUnderManagedE2E(t *testing.T) {
	e := newEnv(t)
	mk := filepath.Join(t.TempDir(), "acme-market")
	writeFile(t, filepath.Join(mk, ".claude-plugin", "marketplace.json"), `{"name": "acme", "owner": {"name": "ACME"},
		"plugins": [{"name": "acme-tools", "source": "./acme", "description": "d", "version": "0.1.0"}]}`)
	log := filepath.Join(e.home, "plugin-hook.log")
	writePlugin(t, filepath.Join(mk, "acme"), log)
	e.ok("plugin", "marketplace", "add", mk)
	e.ok("plugin", "install", "acme-tools@acme")
	installed := filepath.Join(e.home, ".ouro", "plugins", "cache", "acme", "acme-tools", "0.1.0")
	managed := filepath.Join(t.TempDir(), "managed.json")
	e.vars = append(e.vars, "OURO_MANAGED_SETTINGS="+managed)
	session := func() string {
		e.fake(scripted.Turn{ToolCalls: bash("echo hi")}, scripted.Turn{Text: "done"})
		_, errOut, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		data, _ := os.ReadFile(log)
		os.Remove(log)
		return errOut + "\nLOG:" + string(data)
	}
	writeFile(t, managed, `{}`)
	if got := session(); !strings.Contains(got, "LOG:root="+installed) {
		t.Fatalf("the installed plugin's hook did not run from %s:\n%s", installed, got)
	}
	writeFile(t, managed, `{"allowManagedHooksOnly": true}`)
	if got := session(); strings.Contains(got, "LOG:root") || !strings.Contains(got, "plugin acme-tools: its hooks are ignored") {
		t.Fatalf("a user-enabled plugin's hook ran under allowManagedHooksOnly:\n%s", got)
	}
	writeFile(t, managed, `{"allowManagedHooksOnly": true, "enabledPlugins": {"acme-tools@acme": true}}`)
	if got := session(); !strings.Contains(got, "LOG:root="+installed) {
		t.Fatalf("a managed-enabled plugin's hook did not run:\n%s", got)
	}
}
