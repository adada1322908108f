//go:build darwin

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// TestSeatbeltRuns runs commands under sandbox-exec with the profile of a real policy:
// what seatbelt_test.go checks on the text, checked against macOS itself. It has not
// run yet (ouro's CI has no Mac); the README says so.
func TestSeatbeltRuns(t *testing.T) {
	if _, ok := Supported(); !ok {
		t.Skip(noSeatbelt)
	}
	ws, home, tmp := realDirSB(t), realDirSB(t), realDirSB(t)
	for _, d := range []string{".git/hooks", ".claude/skills", "src"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(home, ".ssh", "id_test")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	pol := FromSettings(settings.Sandbox{Filesystem: settings.SandboxFilesystem{DenyRead: []string{"~/.ssh"}}}, []string{ws}, home, tmp)
	run := func(script string) (string, bool) {
		cmd, err := Command(context.Background(), pol, "/bin/sh", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Dir = ws
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	for _, ok := range []string{"echo x > src/a.go", "mkdir -p build/out && touch build/out/o", "echo s > .claude/skills/SKILL.md",
		`test "$TMPDIR" = "` + tmp + `" && touch "$TMPDIR/t"`, "echo > /dev/null", "ls -la " + home, "test -f " + secret} {
		if out, succeeded := run(ok); !succeeded {
			t.Errorf("%s failed under Seatbelt: %s", ok, out)
		}
	}
	for _, bad := range []string{"echo x > .git/hooks/pre-commit", "echo x > .git/config", "mkdir .ouro", "echo {} > .mcp.json",
		"echo x > .claude/settings.json", "touch " + filepath.Join(home, "outside"), "touch /tmp/ouro-seatbelt-test",
		"cat " + secret, "mv " + secret + " " + filepath.Join(ws, "stolen")} {
		if out, succeeded := run(bad); succeeded {
			t.Errorf("%s succeeded under Seatbelt: %s", bad, out)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "stolen")); err == nil {
		t.Error("the secret was moved into the workspace")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "src", "a.go")); strings.TrimSpace(string(b)) != "x" {
		t.Errorf("src/a.go holds %q", b)
	}
}
