package sandbox

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// With allowedDomains, a sandboxed command reaches allowed hosts through the proxy, gets
// a refusal naming the setting for the others, and cannot go around the proxy: direct
// TCP is refused by Landlock except to the proxy's port.
func TestSandboxedCommandsGoThroughTheProxy(t *testing.T) {
	if abi := requireLandlock(t); abi < 4 {
		t.Skipf("Landlock ABI %d cannot restrict TCP", abi)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on PATH")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	defer srv.Close()
	srvPort := srv.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	f := &fakeNet{dns: map[string][]netip.Addr{"web.allowed.test": {netip.MustParseAddr("203.0.113.9")}},
		routes: map[string]string{"203.0.113.9:80": srv.Listener.Addr().String()}}
	px := startTestProxy(t, f, []string{"*.allowed.test"}, nil)
	ws := realTemp(t)
	pol := Policy{WriteRoots: []string{ws}, Network: settings.SandboxNetwork{DomainsSet: true, AllowedDomains: []string{"*.allowed.test"}}}.WithProxy(px)

	r := sh(t, pol, modeLandlock, ws, `curl -sS --max-time 10 http://web.allowed.test/`)
	if r.code != 0 || r.out != "hello from web.allowed.test" {
		t.Errorf("allowed host: exit %d, %q", r.code, r.out)
	}

	mark := pol.ProxyMark()
	r = sh(t, pol, modeLandlock, ws, `curl -sS --max-time 10 https://evil.test/`)
	if r.code == 0 {
		t.Errorf("a host not allowed was reached: %q", r.out)
	}
	if note := pol.ProxyNote(mark); !strings.Contains(note, "evil.test:443") || !strings.Contains(note, "sandbox.network.allowedDomains") {
		t.Errorf("note for the refused CONNECT: %q (output %q)", note, r.out)
	}

	// The attack: drop the proxy variables and connect directly.
	direct := fmt.Sprintf(`unset HTTP_PROXY HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy NO_PROXY no_proxy
curl -sS --max-time 10 http://127.0.0.1:%d/`, srvPort)
	r = sh(t, pol, modeLandlock, ws, direct)
	if r.code == 0 || strings.Contains(r.out, "hello") {
		t.Fatalf("a direct connection got through: exit %d, %q", r.code, r.out)
	}
	note := Diagnose(pol, r.out, ws)
	for _, want := range []string{"direct", "sandbox.network.allowedDomains"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q for %q lacks %q", note, r.out, want)
		}
	}
	r = sh(t, pol, modeLandlock, ws, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d`, srvPort))
	if r.code == 0 || !strings.Contains(Diagnose(pol, r.out, ws), "sandbox.network.allowedDomains") {
		t.Errorf("/dev/tcp: exit %d, %q, note %q", r.code, r.out, Diagnose(pol, r.out, ws))
	}
}
