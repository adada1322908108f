package harness

import (
	"bytes"
	"testing"
)

// sandbox.excludedCommands entries are Bash rule patterns; a bare name stands for the
// command with any arguments, and any simple command of a line counts.
func TestExcludedCommands(t *testing.T) {
	var warn bytes.Buffer
	rules := excludedRules([]string{"docker", "npm run build *", "git:*", ""}, &warn)
	if len(rules) != 3 || warn.Len() != 0 {
		t.Fatalf("%d rules, warnings %q", len(rules), warn.String())
	}
	for cmd, want := range map[string]bool{
		"docker":                      true,
		"docker ps -a":                true,
		"cd sub && docker build .":    true,
		"echo $(docker ps)":           true,
		"dockerd":                     false,
		"npm run build --prod":        true,
		"npm run test":                false,
		"git status":                  true,
		"FOO=1 docker run x":          true,
		"echo docker":                 false,
		"timeout 5 docker compose up": true,
	} {
		if got := excludedCommand(rules, cmd, t.TempDir(), t.TempDir()); got != want {
			t.Errorf("excluded(%q) = %v, want %v", cmd, got, want)
		}
	}
}
