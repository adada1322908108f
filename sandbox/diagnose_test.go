package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

func TestDiagnose(t *testing.T) {
	ws, outside := realTemp(t), realTemp(t)
	tree(t, ws, ".git/hooks/", ".ouro/")
	no, yes := false, true
	p := Policy{
		WriteRoots: []string{ws},
		ReadOnly:   []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".ouro")},
		Network:    settings.SandboxNetwork{Allow: &no},
	}
	open := p
	open.Network = settings.SandboxNetwork{Allow: &yes}
	proxied := p
	proxied.Network = settings.SandboxNetwork{DomainsSet: true, AllowedDomains: []string{"github.com"}}
	out := filepath.Join(outside, "outside-file")

	cases := []struct {
		name   string
		p      Policy
		output string
		want   []string // substrings of the note; none: no note
	}{
		{"bash redirect outside", p, "bash: line 1: " + out + ": Permission denied\n",
			[]string{"writing to " + out + " was blocked", "may write only under " + ws, "sandbox.filesystem.allowWrite"}},
		{"touch, quoted", p, "touch: cannot touch '" + out + "': Permission denied",
			[]string{"writing to " + out + " was blocked"}},
		{"mkdir, typographic quotes", p, "mkdir: cannot create directory ‘" + out + "’: Permission denied",
			[]string{"writing to " + out + " was blocked"}},
		{"go, lower case", p, "open " + out + ": permission denied",
			[]string{"writing to " + out + " was blocked"}},
		{"node", p, "Error: EACCES: permission denied, open '" + out + "'",
			[]string{"writing to " + out + " was blocked"}},
		{"relative read-only path", p, "bash: line 1: .git/hooks/pre-commit: Read-only file system",
			[]string{filepath.Join(ws, ".git", "hooks", "pre-commit") + " is kept read-only", "Write or Edit tool"}},
		{"read-only dir named bare", p, "bash: line 1: .ouro: Permission denied",
			[]string{filepath.Join(ws, ".ouro") + " is kept read-only"}},
		{"refused connection", p, "bash: connect: Permission denied\nbash: line 1: /dev/tcp/127.0.0.1/8080: Permission denied",
			[]string{"may not open TCP connections", "sandbox.network.allowPorts"}},
		{"go dial", p, "dial tcp 127.0.0.1:8080: connect: permission denied",
			[]string{"may not open TCP connections"}},
		{"no path at all", p, "Error: Os { code: 13, kind: PermissionDenied, message: \"Permission denied\" }",
			[]string{"a permission error without naming a path", "may write only under " + ws}},
		{"inside the workspace: the file's own mode", p, "bash: line 1: main.go: Permission denied", nil},
		{"network allowed", open, "bash: connect: Permission denied", nil},
		{"a device", p, "bash: /dev/kvm: Permission denied", nil},
		{"no error", p, "ok\n" + out + "\n", nil},
		{"a URL is no path", p, "curl: (7) https://example.com/x: Permission denied", []string{"may not open TCP connections"}},
		{"curl's bare exit 7", p, "curl: (7) Failed to connect to example.com port 443 after 0 ms: Couldn't connect to server",
			[]string{"if a connection failed above, the sandbox may have blocked it", "sandbox.network.allow: true"}},
		{"curl's exit 7, network open", open, "curl: (7) Failed to connect to example.com port 443 after 0 ms: Couldn't connect to server", nil},
		{"proxied: a direct connection", proxied, "dial tcp 10.0.0.1:22: connect: permission denied",
			[]string{"a connection was blocked: direct TCP connections are refused", "proxy", "sandbox.network.allowedDomains"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			note := Diagnose(tc.p, tc.output, ws)
			if len(tc.want) == 0 {
				if note != "" {
					t.Errorf("note %q, want none", note)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(note, w) {
					t.Errorf("note %q\ndoes not contain %q", note, w)
				}
			}
		})
	}
}

// A path outside the roots that the file permissions forbid anyway (find's "/root:
// Permission denied" for a normal user) is not blamed on the sandbox.
func TestDiagnoseLeavesPermissionErrorsOfTheFilesAlone(t *testing.T) {
	ws := realTemp(t)
	p := Policy{WriteRoots: []string{ws}}
	out := "find: '/root': Permission denied\nfind: '/etc/ssl/private': Permission denied"
	never := func(string) bool { return false }
	if note := diagnose(p, out, never, ws); note != "" {
		t.Errorf("note %q for paths the user cannot write anyway", note)
	}
	always := func(string) bool { return true }
	if note := diagnose(p, out, always, ws); !strings.Contains(note, "writing to /root, /etc/ssl/private was blocked") {
		t.Errorf("note %q: paths ouro could write were not reported", note)
	}
}
