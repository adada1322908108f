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

// Item 9 on a real plugin (ivan-magda/claude-code-plugin-template's plugin-development,
// MIT): loaded with --plugin-dir, its hooks run with CLAUDE_PLUGIN_ROOT set and
// ${CLAUDE_PLUGIN_ROOT} expanded in their commands, its SessionStart hook's output reaches
// the model, and its agent, skill and commands are offered under the plugin's name. The
// plugin's scripts are not in the corpus (they are code): the test writes stand-ins that
// log how they were called.
func TestCorpusRealPluginThroughBinary(t *testing.T) {
	e := newEnv(t)
	plug := filepath.Join(e.home, "plugins", "plugin-development")
	src := filepath.Join(corpusDir, "ivan-magda-plugin", "plugins", "plugin-development")
	if err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(plug, rel), string(data))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(e.home, "hooks.log")
	for _, s := range []string{"validate-plugin.sh", "format-or-lint.sh"} {
		p := filepath.Join(plug, "scripts", s)
		writeFile(t, p, "#!/bin/sh\necho \""+s+" root=$CLAUDE_PLUGIN_ROOT\" >> "+log+"\n")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, "notes.md"), "content": "x\n"})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: write}}},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "write notes", "--plugin-dir", plug, "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	data, _ := os.ReadFile(log)
	for _, want := range []string{"validate-plugin.sh root=" + plug, "format-or-lint.sh root=" + plug} {
		if !strings.Contains(string(data), want) {
			t.Errorf("hook log lacks %q:\n%s", want, data)
		}
	}
	body := string(srv.Requests()[0].Body)
	for _, want := range []string{"plugin-development loaded", "plugin-development:plugin-reviewer", "plugin-development:plugin-authoring"} {
		if !strings.Contains(body, want) {
			t.Errorf("the first request lacks %q", want)
		}
	}
	if strings.Contains(errOut, "plugin-development") && strings.Contains(errOut, "skipped") {
		t.Errorf("the real plugin was skipped:\n%s", errOut)
	}
}

// Issue 26 A1 on a real plugin (aharada54914/sdd-forge's sdd-quality-loop, MIT), whose
// hooks use Claude Code's exec form: "command": "node" with "args" naming the script
// under ${CLAUDE_PLUGIN_ROOT}. Each runs as that argv, no shell in between, with the
// event's JSON on its input: before, "args" was dropped and node read the JSON as its
// program. The plugin sits in a folder whose name holds shell syntax, and the model's
// Write carries a command substitution: neither runs. The scripts are stand-ins.
func TestCorpusExecFormHooksThroughBinary(t *testing.T) {
	node := filepath.Join(mcpNode(t), "node", "bin")
	e := newEnv(t)
	marker := filepath.Join(e.home, "pwned")
	plug := filepath.Join(e.home, "plugins", "sdd $(touch "+marker+")")
	src := filepath.Join(corpusDir, "sdd-forge", "plugins", "sdd-quality-loop")
	for _, f := range []string{".claude-plugin/plugin.json", "hooks/claude-hooks.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(plug, f), string(data))
	}
	log := filepath.Join(e.home, "hooks.log")
	for _, s := range []string{"kill-switch.js", "sdd-hook-guard.js"} {
		writeFile(t, filepath.Join(plug, "scripts", s), `const fs = require("fs");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
fs.appendFileSync(`+"`"+log+"`"+`, JSON.stringify({script: "`+s+`", args: process.argv.slice(2), event: input.hook_event_name, tool: input.tool_name}) + "\n");
`)
	}
	write, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, "notes.md"), "content": "$(touch " + marker + ")\nrequire('fs').writeFileSync('" + marker + "', '')\n"})
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: write}}},
		scripted.Turn{Text: "done"},
	)
	e.vars = append(e.vars, "PATH="+node+":"+os.Getenv("PATH"))
	out, errOut, code := e.run("", "-p", "write notes", "--plugin-dir", plug, "--permission-mode", "acceptEdits")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("text from the plugin's folder name or the model's Write ran as a program")
	}
	data, _ := os.ReadFile(log)
	for _, want := range []string{
		`{"script":"kill-switch.js","args":[],"event":"PreToolUse","tool":"Write"}`,
		`{"script":"sdd-hook-guard.js","args":["--emit","exit"],"event":"PreToolUse","tool":"Write"}`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("hook log lacks %s:\n%s\nstderr:\n%s", want, data, errOut)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(e.dir, "notes.md")); !strings.Contains(string(got), "$(touch") {
		t.Errorf("the Write did not land as written: %q", got)
	}
}
