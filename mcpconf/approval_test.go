package mcpconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 26, D13: an approval is bound to what was approved (command, arguments, the
// names of the environment variables, URL). The same name with another configuration
// (after a pull or a branch switch) is a new server: it needs approving again, and the
// reason says what changed. A value of a variable is not part of it; an approval by name
// alone (no record of what was approved) is asked again.
func TestApprovalIsBoundToTheConfiguration(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	write(t, ProjectFile(cwd), `{"mcpServers":{
		"t":{"command":"node","args":["server.js"],"env":{"TOKEN":"${TOKEN}"}},
		"h":{"type":"http","url":"https://a.example/mcp"}}}`)
	opts := Options{CWD: cwd, UserHome: home, Getenv: env(map[string]string{"TOKEN": "one"})}
	c := load(t, opts)
	if err := Approve(home, cwd, c.Servers, true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(UserFile(home))
	if strings.Contains(string(data), "one") || !strings.Contains(string(data), `"TOKEN"`) {
		t.Errorf("the record must hold the variable's name, never its value: %s", data)
	}
	for _, s := range load(t, opts).Servers {
		if !s.Runnable() {
			t.Errorf("approved %s: %+v", s.Name, s)
		}
	}
	// Another value of the variable is the same server.
	if s, _ := load(t, Options{CWD: cwd, UserHome: home, Getenv: env(map[string]string{"TOKEN": "two"})}).Find("t"); !s.Runnable() {
		t.Errorf("a variable's value changed: %+v", s)
	}

	for _, tc := range []struct{ name, file, server, want string }{
		{"command", `{"mcpServers":{"t":{"command":"sh","args":["server.js"],"env":{"TOKEN":"${TOKEN}"}}}}`, "t", "command changed from node to sh"},
		{"args", `{"mcpServers":{"t":{"command":"node","args":["-e","evil()"],"env":{"TOKEN":"${TOKEN}"}}}}`, "t", `arguments changed from ["server.js"] to ["-e" "evil()"]`},
		{"env names", `{"mcpServers":{"t":{"command":"node","args":["server.js"],"env":{"TOKEN":"${TOKEN}","NODE_OPTIONS":"--require x"}}}}`, "t", `environment variables changed from ["TOKEN"] to ["NODE_OPTIONS" "TOKEN"]`},
		{"url", `{"mcpServers":{"h":{"type":"http","url":"https://b.example/mcp"}}}`, "h", "url changed from https://a.example/mcp to https://b.example/mcp"},
		{"type", `{"mcpServers":{"h":{"command":"curl"}}}`, "h", "type changed from http to stdio"},
	} {
		write(t, ProjectFile(cwd), tc.file)
		s, _ := load(t, opts).Find(tc.server)
		if s.State != StateNeedsApproval || !strings.Contains(s.Changed, tc.want) || !strings.Contains(s.Reason, tc.want) || !strings.Contains(s.Reason, "ouro mcp approve "+tc.server) {
			t.Errorf("%s: %+v, want needs-approval saying %q", tc.name, s, tc.want)
		}
	}
	// Approving the changed server binds the approval to its new configuration.
	c = load(t, opts)
	if err := Approve(home, cwd, c.Servers, true); err != nil {
		t.Fatal(err)
	}
	if s, _ := load(t, opts).Find("h"); !s.Runnable() {
		t.Errorf("approved again: %+v", s)
	}

	// An approval by name alone does not say what was approved: asked again.
	for _, f := range []string{UserFile(home), filepath.Join(home, ".claude.json")} {
		home2 := t.TempDir()
		write(t, filepath.Join(home2, filepath.Base(f)), `{"projects":{"`+cwd+`":{"enabledMcpjsonServers":["h"]}}}`)
		s, _ := load(t, Options{CWD: cwd, UserHome: home2}).Find("h")
		if s.State != StateNeedsApproval || !strings.Contains(s.Reason, "approved by name only") {
			t.Errorf("%s: an approval without a fingerprint: %+v", filepath.Base(f), s)
		}
	}
	// enableAllProjectMcpServers in the user's settings is a choice about whatever the
	// project defines, and still holds.
	home3 := t.TempDir()
	write(t, filepath.Join(home3, ".claude", "settings.json"), `{"enableAllProjectMcpServers":true}`)
	if s, _ := load(t, Options{CWD: cwd, UserHome: home3}).Find("h"); !s.Runnable() {
		t.Errorf("enableAllProjectMcpServers: %+v", s)
	}
}

// Issue 26, D12: a user settings file an ouro session wrote, that nobody reviewed since,
// approves no project server (enableAllProjectMcpServers), and the warning says why; the
// same file, reviewed, does.
func TestUnreviewedUserSettingsApproveNoServer(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	write(t, ProjectFile(cwd), `{"mcpServers":{"h":{"type":"http","url":"https://a.example/mcp"}}}`)
	settingsFile := filepath.Join(home, ".claude", "settings.json")
	write(t, settingsFile, `{"enableAllProjectMcpServers":true}`)
	var asked []string
	unreviewed := func(path string, data []byte) string {
		asked = append(asked, path)
		if path == settingsFile {
			return "an ouro session wrote it and nobody has reviewed it since"
		}
		return ""
	}
	c, err := Load(Options{CWD: cwd, UserHome: home, Unreviewed: unreviewed})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Find("h"); s.Runnable() {
		t.Errorf("an unreviewed file approved the server: %+v", s)
	}
	if !strings.Contains(strings.Join(c.Warnings, "\n"), settingsFile+" approves MCP servers; that is ignored until a person reviews the file") {
		t.Errorf("warnings %q", c.Warnings)
	}
	if len(asked) == 0 {
		t.Error("the file's review was never asked about")
	}
	reviewed := func(string, []byte) string { return "" }
	if s, _ := load(t, Options{CWD: cwd, UserHome: home, Unreviewed: reviewed}).Find("h"); !s.Runnable() {
		t.Errorf("a reviewed file did not approve: %+v", s)
	}
}
