package mcpconf

import (
	"path/filepath"
	"strings"
	"testing"
)

// A server of type "sdk" lives in the Agent SDK's process: --mcp-config may name one
// (the SDK passes it so), a project's .mcp.json or the user's file may not.
func TestSDKServersOnlyFromTheFlag(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	write(t, filepath.Join(cwd, ".mcp.json"), `{"mcpServers":{"planted":{"type":"sdk"}}}`)
	write(t, UserFile(home), `{"mcpServers":{"mine":{"type":"sdk"}}}`)
	c := load(t, Options{CWD: cwd, UserHome: home, Getenv: env(nil),
		Flags: []string{`{"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}`}})
	if s, ok := c.Find("calc"); !ok || s.Type != TypeSDK || !s.Runnable() {
		t.Fatalf("--mcp-config sdk server: %+v %v", s, ok)
	}
	for _, name := range []string{"planted", "mine"} {
		s, ok := c.Find(name)
		if !ok || s.Runnable() || !strings.Contains(s.Reason, "only --mcp-config may name one") {
			t.Errorf("%s: %+v", name, s)
		}
	}
}
