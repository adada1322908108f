package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDomainPatterns(t *testing.T) {
	cases := []struct {
		entry string
		host  string
		port  int
		want  bool
	}{
		{"github.com", "github.com", 443, true},
		{"github.com", "api.github.com", 443, false},
		{"GitHub.com.", "github.com", 443, true},
		{"*.github.com", "api.github.com", 443, true},
		{"*.github.com", "a.b.github.com", 80, true},
		{"*.github.com", "github.com", 443, false},
		{"*.github.com", "evilgithub.com", 443, false},
		{"*.github.com", "github.com.evil.test", 443, false},
		{"example.test:8080", "example.test", 8080, true},
		{"example.test:8080", "example.test", 443, false},
		{"10.1.2.3", "10.1.2.3", 22, true},
		{"10.1.2.3", "10.1.2.4", 22, false},
		{"[::1]:443", "::1", 443, true},
	}
	for _, c := range cases {
		d, err := parseDomain(c.entry)
		if err != nil {
			t.Errorf("parseDomain(%q): %v", c.entry, err)
			continue
		}
		if got := d.matchName(c.host, c.port); got != c.want {
			t.Errorf("%q matches %s:%d = %v, want %v", c.entry, c.host, c.port, got, c.want)
		}
	}
	for _, bad := range []string{"", "*", "https://github.com", "github.com/x", "git*hub.com", "*.10.0.0.1", "a..b", "host:0", "host:99999"} {
		if _, err := parseDomain(bad); err == nil {
			t.Errorf("parseDomain(%q) accepted", bad)
		}
	}
}

// fakeNet stands in for DNS and the internet: names resolve to the addresses in dns, and
// a connection to one of the addresses in routes reaches the loopback server there.
type fakeNet struct {
	mu       sync.Mutex
	dns      map[string][]netip.Addr
	routes   map[string]string // "ip:port" -> loopback address
	resolved atomic.Int32
	dialed   []string
}

func (f *fakeNet) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	f.resolved.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if a, ok := f.dns[host]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

func (f *fakeNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	f.mu.Lock()
	f.dialed = append(f.dialed, addr)
	to, ok := f.routes[addr]
	f.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("connect %s: unreachable in this test", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, to)
}

func startTestProxy(t *testing.T, f *fakeNet, allowed, denied []string) *Proxy {
	t.Helper()
	p, warnings, err := StartProxy(ProxyConfig{Allowed: allowed, Denied: denied, Sources: []string{"/home/u/.claude/settings.json"},
		Resolve: f.resolve, Dial: f.dial})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Fatalf("warnings: %q", warnings)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// echoServer answers every line with "echo: " and the line.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					fmt.Fprintf(c, "echo: %s\n", sc.Text())
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// connect sends CONNECT target through the proxy and returns the status line, the
// response and the connection.
func connectVia(t *testing.T, p *Proxy, target string) (int, string, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.Port()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	body := ""
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
	}
	return resp.StatusCode, body, c, br
}

func TestProxyConnect(t *testing.T) {
	echo := echoServer(t)
	f := &fakeNet{
		dns: map[string][]netip.Addr{
			"api.allowed.test":    {netip.MustParseAddr("203.0.113.7")},
			"rebind.allowed.test": {netip.MustParseAddr("127.0.0.1")},
			"meta.allowed.test":   {netip.MustParseAddr("169.254.169.254")},
			"mapped.allowed.test": {netip.MustParseAddr("::ffff:127.0.0.1")},
			"bad.allowed.test":    {netip.MustParseAddr("198.51.100.66")},
			"localhost":           {netip.MustParseAddr("127.0.0.1")},
		},
		routes: map[string]string{"203.0.113.7:443": echo, "127.0.0.1:7000": echo},
	}
	p := startTestProxy(t, f, []string{"*.allowed.test", "127.0.0.1:7000", "localhost"}, []string{"198.51.100.66", "blocked.allowed.test"})

	code, _, c, br := connectVia(t, p, "api.allowed.test:443")
	if code != 200 {
		t.Fatalf("allowed CONNECT: status %d", code)
	}
	fmt.Fprintf(c, "ping\n")
	if line, _ := br.ReadString('\n'); line != "echo: ping\n" {
		t.Errorf("through the tunnel: %q", line)
	}

	mark := p.Mark()
	before := f.resolved.Load()
	code, body, _, _ := connectVia(t, p, "evil.test:443")
	if code != http.StatusForbidden || !strings.Contains(body, "evil.test is not in sandbox.network.allowedDomains (set in /home/u/.claude/settings.json)") {
		t.Errorf("denied CONNECT: %d %q", code, body)
	}
	if f.resolved.Load() != before {
		t.Error("a refused name was looked up in DNS")
	}
	rs := p.RefusedSince(mark)
	if len(rs) != 1 || rs[0].Host != "evil.test" || rs[0].Port != 443 {
		t.Errorf("refusals = %+v", rs)
	}

	for _, c := range []struct{ target, want string }{
		{"rebind.allowed.test:443", "resolves to 127.0.0.1, a local address"},
		{"mapped.allowed.test:443", "resolves to 127.0.0.1, a local address"},
		{"meta.allowed.test:80", "resolves to 169.254.169.254"},
		{"bad.allowed.test:443", "resolves to 198.51.100.66, which sandbox.network.deniedDomains refuses"},
		{"blocked.allowed.test:443", `refused by the sandbox.network.deniedDomains entry "blocked.allowed.test"`},
		{"127.0.0.1:22", "127.0.0.1 is not in sandbox.network.allowedDomains"},
		{"localhost:22", "resolves"}, // localhost is allowed by name, but never reached: routes has no 127.0.0.1:22
	} {
		code, body, _, _ := connectVia(t, p, c.target)
		if c.target == "localhost:22" {
			// "localhost" names loopback itself, so the check passes; the fake network
			// has nothing there, so the dial fails.
			if code != http.StatusBadGateway {
				t.Errorf("%s: status %d %q, want 502", c.target, code, body)
			}
			continue
		}
		if code != http.StatusForbidden || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q, want 403 saying %q", c.target, code, body, c.want)
		}
	}
	for _, d := range f.dialed {
		if d != "203.0.113.7:443" && d != "127.0.0.1:22" {
			t.Errorf("the proxy dialed %s, which it refused", d)
		}
	}

	// An IP address entry reaches the local service it names.
	if code, _, _, _ := connectVia(t, p, "127.0.0.1:7000"); code != 200 {
		t.Errorf("CONNECT to the allowed 127.0.0.1:7000: %d", code)
	}
	for _, bad := range []string{"evil.test", "a b:443", "x%00.allowed.test:443"} {
		if code, _, _, _ := connectVia(t, p, bad); code != http.StatusBadRequest && code != http.StatusForbidden {
			t.Errorf("CONNECT %q: %d", bad, code)
		}
	}
}

// A name that resolves to an allowed address when checked and to another one later
// (DNS rebinding) is connected to at the address that was checked.
func TestProxyDialsTheCheckedAddress(t *testing.T) {
	echo := echoServer(t)
	f := &fakeNet{dns: map[string][]netip.Addr{"flip.allowed.test": {netip.MustParseAddr("203.0.113.8")}},
		routes: map[string]string{"203.0.113.8:443": echo}}
	p := startTestProxy(t, f, []string{"*.allowed.test"}, nil)
	code, _, _, _ := connectVia(t, p, "flip.allowed.test:443")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	if n := f.resolved.Load(); n != 1 {
		t.Errorf("resolved %d times, want once", n)
	}
	if len(f.dialed) != 1 || f.dialed[0] != "203.0.113.8:443" {
		t.Errorf("dialed %q", f.dialed)
	}
}

func TestProxyPlainHTTP(t *testing.T) {
	var gotHost atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHost.Store(r.Host)
		fmt.Fprintf(w, "hello from %s%s", r.Host, r.URL.Path)
	}))
	defer srv.Close()
	f := &fakeNet{dns: map[string][]netip.Addr{"web.allowed.test": {netip.MustParseAddr("203.0.113.9")}},
		routes: map[string]string{"203.0.113.9:80": srv.Listener.Addr().String()}}
	p := startTestProxy(t, f, []string{"web.allowed.test"}, nil)

	raw := func(req string) (int, string) {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.Port()))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%q: %v", req, err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// A Host header that disagrees with the URL does not choose where the request goes,
	// nor what the server is told.
	code, body := raw("GET http://web.allowed.test/x HTTP/1.1\r\nHost: evil.test\r\n\r\n")
	if code != 200 || body != "hello from web.allowed.test/x" || gotHost.Load() != "web.allowed.test" {
		t.Errorf("allowed URL, lying Host: %d %q (server saw Host %v)", code, body, gotHost.Load())
	}
	code, body = raw("GET http://evil.test/ HTTP/1.1\r\nHost: web.allowed.test\r\n\r\n")
	if code != http.StatusForbidden || !strings.Contains(body, "evil.test is not in sandbox.network.allowedDomains") {
		t.Errorf("refused URL, allowed Host: %d %q", code, body)
	}
	// Not a proxy request: the proxy is no web server for whatever Host says.
	if code, _ := raw("GET / HTTP/1.1\r\nHost: web.allowed.test\r\n\r\n"); code != http.StatusBadRequest {
		t.Errorf("origin-form request: %d", code)
	}
	if code, _ := raw("GET ftp://web.allowed.test/ HTTP/1.1\r\nHost: web.allowed.test\r\n\r\n"); code != http.StatusBadRequest {
		t.Errorf("ftp URL: %d", code)
	}
}

// Close ends the listener and every tunnel: nothing of the proxy outlives it.
func TestProxyCloseEndsTunnels(t *testing.T) {
	echo := echoServer(t)
	f := &fakeNet{dns: map[string][]netip.Addr{"a.allowed.test": {netip.MustParseAddr("203.0.113.7")}},
		routes: map[string]string{"203.0.113.7:443": echo}}
	p := startTestProxy(t, f, []string{"*.allowed.test"}, nil)
	code, _, c, br := connectVia(t, p, "a.allowed.test:443")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	port := p.Port()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "ping\n")
	if line, err := br.ReadString('\n'); err == nil {
		t.Errorf("the tunnel still answers after Close: %q", line)
	}
	p.mu.Lock()
	if n := len(p.conns); n != 0 {
		t.Errorf("%d connections still tracked after Close", n)
	}
	p.mu.Unlock()
	if c2, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
		c2.Close()
		t.Error("the proxy still accepts connections after Close")
	}
}

func TestProxyNote(t *testing.T) {
	f := &fakeNet{}
	p := startTestProxy(t, f, []string{"github.com"}, nil)
	pol := Policy{}.WithProxy(p)
	if pol.ProxyPort != p.Port() {
		t.Fatalf("ProxyPort = %d", pol.ProxyPort)
	}
	mark := pol.ProxyMark()
	if note := pol.ProxyNote(mark); note != "" {
		t.Errorf("a note before any refusal: %q", note)
	}
	connectVia(t, p, "evil.test:443")
	note := pol.ProxyNote(mark)
	for _, want := range []string{"refused a connection to evil.test:443", "sandbox.network.allowedDomains"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if again := pol.ProxyNote(pol.ProxyMark()); again != "" {
		t.Errorf("an old refusal reported again: %q", again)
	}
	var none Policy
	if none.ProxyNote(none.ProxyMark()) != "" {
		t.Error("a policy without a proxy has a note")
	}
}

// A finished tunnel is forgotten: many short tunnels do not pile up in the proxy.
func TestProxyForgetsFinishedTunnels(t *testing.T) {
	echo := echoServer(t)
	f := &fakeNet{dns: map[string][]netip.Addr{"a.allowed.test": {netip.MustParseAddr("203.0.113.7")}},
		routes: map[string]string{"203.0.113.7:443": echo}}
	p := startTestProxy(t, f, []string{"*.allowed.test"}, nil)
	for range 5 {
		code, _, c, _ := connectVia(t, p, "a.allowed.test:443")
		if code != 200 {
			t.Fatalf("status %d", code)
		}
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		p.mu.Lock()
		n := len(p.conns)
		p.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still tracked after every tunnel ended", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
