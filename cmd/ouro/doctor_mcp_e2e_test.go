//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// ouro doctor's MCP section: a project's .mcp.json with two servers, one approved (with
// `ouro mcp approve`) and one not, and a user server that cannot start. The approved one
// is started and said to start; the unapproved one is never started (its command would
// leave a file) and said to be unapproved; the broken one's error is shown. The last
// section names the key of the user's settings that ouro does not honour.
func TestDoctorMCPServersAndUnhonouredSettings(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "unused"})
	bin := mcpTestServer(t)
	marker := filepath.Join(e.dir, "UNAPPROVED-STARTED")
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"approved":   map[string]any{"command": bin, "args": []string{"good"}},
		"unapproved": map[string]any{"command": "touch", "args": []string{marker}},
	}})
	writeFile(t, filepath.Join(e.dir, ".mcp.json"), string(mcpJSON))
	writeFile(t, filepath.Join(e.home, ".ouro.json"), `{"mcpServers": {"broken": {"command": "/nonexistent/mcp-server"}}}`)
	userSettings := filepath.Join(e.home, ".claude", "settings.json")
	writeFile(t, userSettings, `{"model": "claude-sonnet-4-5", "spinnerTipsEnabled": false}`)
	if _, stderr, code := e.run("", "mcp", "approve", "approved"); code != 0 {
		t.Fatalf("approve: exit %d %s", code, stderr)
	}

	out, stderr, _ := e.run("", "doctor")
	sec := regexp.MustCompile(`(?s)\nmcp servers\n(.*?)\n\n`).FindStringSubmatch(out)
	if sec == nil {
		t.Fatalf("no mcp servers section:\n%s\n%s", out, stderr)
	}
	mcpJSONPath := filepath.Join(e.dir, ".mcp.json")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`loaded\s+` + regexp.QuoteMeta(mcpJSONPath) + ` — server approved \(project, stdio\): approved, starts \(\d+ tools\)`),
		regexp.MustCompile(`skipped\s+` + regexp.QuoteMeta(mcpJSONPath) + ` — server unapproved \(project, stdio\): not approved, not started: .*ouro mcp approve unapproved`),
		regexp.MustCompile(`skipped\s+\S*\.ouro\.json — server broken \(user, stdio\): does not start: .+`),
	} {
		if !want.MatchString(sec[1]) {
			t.Errorf("the mcp section lacks %s:\n%s", want, sec[1])
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("doctor started the unapproved project server")
	}
	un := regexp.MustCompile(`(?s)\nsettings ouro reads but does not honour\n(.*?)\n\n`).FindStringSubmatch(out)
	if un == nil || !strings.Contains(un[1], userSettings+" — read, not honoured by ouro: spinnerTipsEnabled") || strings.Contains(un[1], "model") {
		t.Fatalf("the unhonoured section:\n%s", out)
	}
	// The existing sections are as they were: the user settings file is loaded with its model.
	if !strings.Contains(out, "loaded    "+userSettings+" — model claude-sonnet-4-5") {
		t.Fatalf("settings section changed:\n%s", out)
	}
}
