//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// CLAUDE_ENV_FILE: a SessionStart hook writes `export NAME=value` lines to the file it
// is given, and every later Bash command of the session sees them. Each hook has a file
// of its own (one hook's `>` does not erase another's); the folder is gone once the
// session ends.
func TestSessionStartEnvFile(t *testing.T) {
	e := newEnv(t)
	log := filepath.Join(e.home, "envfile.log")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"hooks": {"SessionStart": [{"hooks": [
		{"type": "command", "command": "echo \"$CLAUDE_ENV_FILE\" >> `+log+`; echo 'export NODE_ENV=production' >> \"$CLAUDE_ENV_FILE\""},
		{"type": "command", "command": "echo \"export PATH=\\\"$CLAUDE_PROJECT_DIR/bin:\\$PATH\\\"\" > \"$CLAUDE_ENV_FILE\""}]}]}}`)
	writeFile(t, filepath.Join(e.dir, "bin", "greet"), "#!/bin/sh\necho hello from bin\n")
	if err := os.Chmod(filepath.Join(e.dir, "bin", "greet"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.fake(
		scripted.Turn{ToolCalls: bash(`echo "env=$NODE_ENV"; greet`)},
		scripted.Turn{ExpectContains: "env=production\nhello from bin", ToolCalls: bash(`echo "again=$NODE_ENV"`)},
		scripted.Turn{ExpectContains: "again=production", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	data, err := os.ReadFile(log)
	if err != nil || !strings.Contains(string(data), "ouro-session-env-") {
		t.Fatalf("the hook was not given CLAUDE_ENV_FILE: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Dir(strings.TrimSpace(string(data)))); !os.IsNotExist(err) {
		t.Errorf("the env folder outlived the session: %v", err)
	}
}

// A sandboxed command cannot plant code in the env folder for later commands to source
// (an unsandboxed one, such as an excludedCommands entry, would run it outside the
// sandbox): the folder is outside what the sandbox lets it write.
func TestEnvFileCannotBePlantedFromTheSandbox(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	e := newEnv(t)
	log := filepath.Join(e.home, "envfile.log")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"hooks": {"SessionStart": [{"hooks": [
		{"type": "command", "command": "dirname \"$CLAUDE_ENV_FILE\" > `+log+`; echo 'export FROM_HOOK=1' >> \"$CLAUDE_ENV_FILE\""}]}]}}`)
	// ouro makes the folder in its temp dir, which the command is told here; it finds the
	// folder by the hook's file in it.
	tmp := t.TempDir()
	e.vars = append(e.vars, "TMPDIR="+tmp)
	plant := `d=$(grep -l FROM_HOOK ` + tmp + `/ouro-session-env-*/*.sh | head -1 | xargs dirname); echo "found=${d:+yes}"; ` +
		`echo 'export PLANTED=1' > "$d/zz-plant.sh"; echo 'export FROM_HOOK=2' >> "$d/0001-SessionStart-hook.sh"; true`
	e.fake(
		scripted.Turn{ToolCalls: bash(plant)},
		scripted.Turn{ExpectContains: "found=yes", ToolCalls: bash(`echo "planted=$PLANTED hook=$FROM_HOOK"`)},
		scripted.Turn{ExpectContains: "planted= hook=1", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
}
