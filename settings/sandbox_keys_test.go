package settings

import (
	"path/filepath"
	"reflect"
	"testing"
)

// Claude Code's own sandbox keys are read with its names; lists merge from every file
// (a project may add domains and excluded commands, as in Claude Code); scalars come
// from the most specific file.
func TestLoadClaudeCodeSandboxKeys(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.home, ".claude", "settings.json"),
		`{"sandbox":{"enabled":true,"autoAllowBashIfSandboxed":false,"excludedCommands":["docker"],
		  "network":{"allowedDomains":["github.com","*.npmjs.org"],"deniedDomains":["evil.test"]}}}`)
	proj := write(t, filepath.Join(tr.proj, ".claude", "settings.json"),
		`{"sandbox":{"autoAllowBashIfSandboxed":true,"excludedCommands":["git *"],"network":{"allowedDomains":["example.test:8080"]}}}`)
	s, err := Load(tr.opts())
	if err != nil {
		t.Fatal(err)
	}
	sb := s.Sandbox
	if sb.AutoAllowBashIfSandboxed == nil || !*sb.AutoAllowBashIfSandboxed || !sb.AutoAllow() {
		t.Errorf("autoAllowBashIfSandboxed = %v, want the project's true", sb.AutoAllowBashIfSandboxed)
	}
	if want := []string{"git *", "docker"}; !reflect.DeepEqual(sb.ExcludedCommands, want) {
		t.Errorf("excludedCommands = %q, want %q", sb.ExcludedCommands, want)
	}
	if want := map[string]string{"git *": proj}; !reflect.DeepEqual(sb.ExcludedByProject, want) {
		t.Errorf("excludedByProject = %q, want %q (the user's docker is not the project's)", sb.ExcludedByProject, want)
	}
	if want := []string{"example.test:8080", "github.com", "*.npmjs.org"}; !reflect.DeepEqual(sb.Network.AllowedDomains, want) {
		t.Errorf("allowedDomains = %q, want %q", sb.Network.AllowedDomains, want)
	}
	if !sb.Network.Proxied() || !sb.Network.Restricted() || sb.Network.DomainSources[0] != proj {
		t.Errorf("network = %+v: want proxied, restricted, sources naming %s first", sb.Network, proj)
	}
	if !reflect.DeepEqual(sb.Network.DeniedDomains, []string{"evil.test"}) {
		t.Errorf("deniedDomains = %q", sb.Network.DeniedDomains)
	}
}

// With no network key at all the network is open; an empty allowedDomains list still
// restricts it (to nothing), and allow: false restricts it to allowPorts.
func TestSandboxNetworkDefaults(t *testing.T) {
	f, tr := false, true
	cases := []struct {
		name             string
		n                SandboxNetwork
		proxied, limited bool
	}{
		{"no keys", SandboxNetwork{}, false, false},
		{"allow true", SandboxNetwork{Allow: &tr}, false, false},
		{"allow false", SandboxNetwork{Allow: &f}, false, true},
		{"allowPorts alone", SandboxNetwork{AllowPorts: []int{443}}, false, true},
		{"allowPorts with allow true", SandboxNetwork{Allow: &tr, AllowPorts: []int{443}}, false, false},
		{"empty allowedDomains", SandboxNetwork{DomainsSet: true}, true, true},
		{"allowedDomains beat allow true", SandboxNetwork{Allow: &tr, DomainsSet: true, AllowedDomains: []string{"a.test"}}, true, true},
	}
	for _, c := range cases {
		if c.n.Proxied() != c.proxied || c.n.Restricted() != c.limited {
			t.Errorf("%s: proxied %v restricted %v, want %v %v", c.name, c.n.Proxied(), c.n.Restricted(), c.proxied, c.limited)
		}
	}
	on := true
	for _, c := range []struct {
		s    Sandbox
		want bool
	}{
		{Sandbox{}, false}, // ouro's sandbox is on by default, but auto-allow needs a file to ask
		{Sandbox{Enabled: &Sourced[bool]{Value: on}}, true},
		{Sandbox{Enabled: &Sourced[bool]{Value: on}, AutoAllowBashIfSandboxed: &f}, false},
		{Sandbox{AutoAllowBashIfSandboxed: &tr}, true},
		{Sandbox{Enabled: &Sourced[bool]{Value: f}, AutoAllowBashIfSandboxed: &tr}, false},
	} {
		if got := c.s.AutoAllow(); got != c.want {
			t.Errorf("AutoAllow(%+v) = %v, want %v", c.s, got, c.want)
		}
	}
}
