package plugin_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/plugin"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A plugin in Claude Code's layout: manifest, hooks/hooks.json, skills/, agents/,
// commands/, plus a manifest path that adds a folder.
func TestLoadClaudeCodeLayout(t *testing.T) {
	root := filepath.Join(t.TempDir(), "fmt-plugin")
	write(t, filepath.Join(root, ".claude-plugin", "plugin.json"), `{"name": "formatter", "version": "1.2.0",
		"description": "Formats code", "author": {"name": "A"}, "agents": "./extra-agents"}`)
	write(t, filepath.Join(root, "hooks", "hooks.json"), `{"description": "format on write", "hooks": {"PostToolUse": [
		{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh", "timeout": 30}]}]}}`)
	write(t, filepath.Join(root, "skills", "style", "SKILL.md"), "---\nname: style\ndescription: d\n---\n")
	write(t, filepath.Join(root, "agents", "a.md"), "---\nname: a\ndescription: d\n---\n")
	write(t, filepath.Join(root, "extra-agents", "b.md"), "---\nname: b\ndescription: d\n---\n")
	write(t, filepath.Join(root, "commands", "c.md"), "do it")
	ps, warns := plugin.Load([]string{root})
	if len(ps) != 1 || len(warns) != 0 {
		t.Fatalf("plugins %+v warnings %v", ps, warns)
	}
	p := ps[0]
	if p.Name != "formatter" || p.Version != "1.2.0" || p.Root != root {
		t.Errorf("plugin %+v", p)
	}
	g := p.Hooks["PostToolUse"]
	if len(g) != 1 || g[0].PluginRoot != root || g[0].Matcher != "Write|Edit" || !strings.Contains(g[0].Source, "plugin formatter") {
		t.Errorf("hooks %+v", p.Hooks)
	}
	if len(p.SkillDirs) != 1 || len(p.AgentDirs) != 2 || len(p.CommandDirs) != 1 || len(p.HookFiles) != 1 {
		t.Errorf("dirs %+v", p)
	}
}

// Without a manifest the folder's name is the plugin's; inline hooks in the manifest
// count too.
func TestNoManifestAndInlineHooks(t *testing.T) {
	base := t.TempDir()
	bare := filepath.Join(base, "bare")
	write(t, filepath.Join(bare, "hooks", "hooks.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	inline := filepath.Join(base, "inline")
	write(t, filepath.Join(inline, ".claude-plugin", "plugin.json"), `{"name": "inline", "hooks": {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}}`)
	ps, warns := plugin.Load([]string{bare, inline})
	if len(ps) != 2 || len(warns) != 0 || ps[0].Name != "bare" || len(ps[0].Hooks["Stop"]) != 1 || len(ps[1].Hooks["SessionStart"]) != 1 {
		t.Fatalf("plugins %+v warnings %v", ps, warns)
	}
}

// Malformed plugins are skipped with a warning saying why; the others load.
func TestMalformedPluginsAreSkipped(t *testing.T) {
	base := t.TempDir()
	good := filepath.Join(base, "good")
	write(t, filepath.Join(good, ".claude-plugin", "plugin.json"), `{"name": "good"}`)
	cases := map[string]struct{ file, content, why string }{
		"badjson":  {".claude-plugin/plugin.json", `{"name": "x",}`, "invalid JSON"},
		"badhooks": {"hooks/hooks.json", `{"hooks": [1]}`, "invalid JSON"},
		"badname":  {".claude-plugin/plugin.json", `{"name": "My Plugin"}`, "not kebab-case"},
		"escape":   {".claude-plugin/plugin.json", `{"name": "escape", "hooks": "../../elsewhere/hooks.json"}`, "leaves the plugin's folder"},
		"absolute": {".claude-plugin/plugin.json", `{"name": "absolute", "agents": "/etc"}`, "must be relative"},
		"dup":      {".claude-plugin/plugin.json", `{"name": "good"}`, "already has the name"},
	}
	dirs := []string{good, filepath.Join(base, "missing")}
	for name, c := range cases {
		d := filepath.Join(base, name)
		write(t, filepath.Join(d, filepath.FromSlash(c.file)), c.content)
		dirs = append(dirs, d)
	}
	ps, warns := plugin.Load(dirs)
	if len(ps) != 1 || ps[0].Name != "good" {
		t.Fatalf("plugins %+v", ps)
	}
	all := strings.Join(warns, "\n")
	for name, c := range cases {
		if !strings.Contains(all, filepath.Join(base, name)+" is skipped") || !strings.Contains(all, c.why) {
			t.Errorf("%s: warnings lack %q:\n%s", name, c.why, all)
		}
	}
	if !strings.Contains(all, "missing is skipped") {
		t.Errorf("no warning for a missing folder:\n%s", all)
	}
}
