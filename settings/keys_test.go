package settings

import (
	"slices"
	"testing"
)

// The keys ouro acts on are not named; keys it does not implement are, nested ones by
// their dotted path; apiKeyHelper, which ouro runs now, is not.
func TestUnhonoured(t *testing.T) {
	doc := `{"$schema": "x", "model": "m", "env": {"ANY": "1"}, "hooks": {"Stop": []},
		"permissions": {"allow": [], "defaultMode": "plan", "futureKey": 1},
		"sandbox": {"enabled": true, "network": {"allowedDomains": [], "httpProxyPort": 8080}, "enableWeakerNestedSandbox": true},
		"statusLine": {"type": "command", "command": "x", "padding": 1, "hideVimModeIndicator": true}, "apiKeyHelper": "h", "enabledMcpjsonServers": ["a"]}`
	got := Unhonoured([]byte(doc), "enabledMcpjsonServers")
	want := []string{"permissions.futureKey", "sandbox.enableWeakerNestedSandbox", "sandbox.network.httpProxyPort", "statusLine.hideVimModeIndicator"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := Unhonoured([]byte(`not json`)); got != nil {
		t.Fatalf("%v", got)
	}
	// Without the MCP package's keys, its approvals are not honoured by settings alone.
	if got := Unhonoured([]byte(`{"enabledMcpjsonServers": []}`)); !slices.Equal(got, []string{"enabledMcpjsonServers"}) {
		t.Fatalf("%v", got)
	}
}
