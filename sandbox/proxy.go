package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The filtering proxy is how sandbox.network.allowedDomains is enforced: Landlock can
// only allow TCP ports, not hosts, so when a file sets allowedDomains the launcher refuses
// every direct TCP connection except to the proxy's port (and sandbox.network.allowPorts),
// and points commands at the proxy with HTTP_PROXY, HTTPS_PROXY and ALL_PROXY. The proxy
// runs inside ouro (loopback, a random port), so it ends when ouro ends; it accepts CONNECT
// (HTTPS and any TLS) and plain http:// requests, and lets through only hosts an
// allowedDomains entry matches and no deniedDomains entry does.
//
// What this leaves open: Landlock's rule is per port, on every address, so a command can
// reach any host on the proxy's port number directly (the port is random, and changes
// with each session); UDP (DNS included), ICMP and Unix sockets are not covered by Landlock
// at the ABI used here; and a CONNECT tunnel carries whatever the client sends, so a TLS
// client can name another server in its SNI or Host header than the one tunnelled to
// (domain fronting through a CDN that serves both).

// ProxyConfig configures the filtering proxy.
type ProxyConfig struct {
	// Allowed are allowedDomains entries: "example.com", "*.example.com" (subdomains
	// only), either with ":port" to allow one port only, or an IP address.
	Allowed []string
	// Denied are deniedDomains entries, in the same forms; they win over Allowed. An IP
	// address here also refuses every name that resolves to it.
	Denied []string
	// Sources name the settings files that set allowedDomains, for the refusal text.
	Sources []string
	// Resolve looks a host name up; nil uses the system resolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial opens a connection to an address ("ip:port") the proxy already checked; nil
	// uses net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Refusal is one connection the proxy refused.
type Refusal struct {
	Host string
	Port int
	// Why says what refused it, naming the setting that would allow it.
	Why string
	seq uint64
}

// Proxy is a running filtering proxy. Its methods are safe for concurrent use.
type Proxy struct {
	cfg     ProxyConfig
	allowed []domainPattern
	denied  []domainPattern
	ln      net.Listener
	srv     *http.Server

	mu       sync.Mutex
	seq      uint64
	refusals []Refusal
	conns    map[net.Conn]struct{}
	closed   bool
}

// quiet keeps the proxy's server from printing on ouro's stderr.
var quiet = log.New(io.Discard, "", 0)

// maxRefusals bounds the refusals kept for the notes in tool results.
const maxRefusals = 64

// StartProxy starts the proxy on a random loopback port. warnings name the entries that
// cannot be used and why (they allow nothing).
func StartProxy(cfg ProxyConfig) (*Proxy, []string, error) {
	p := &Proxy{cfg: cfg, conns: map[net.Conn]struct{}{}}
	var warnings []string
	for _, e := range cfg.Allowed {
		d, err := parseDomain(e)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("sandbox.network.allowedDomains entry %q is ignored: %v", e, err))
			continue
		}
		p.allowed = append(p.allowed, d)
	}
	for _, e := range cfg.Denied {
		d, err := parseDomain(e)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("sandbox.network.deniedDomains entry %q is ignored: %v", e, err))
			continue
		}
		p.denied = append(p.denied, d)
	}
	if p.cfg.Resolve == nil {
		p.cfg.Resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if p.cfg.Dial == nil {
		d := &net.Dialer{Timeout: 30 * time.Second}
		p.cfg.Dial = d.DialContext
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, warnings, fmt.Errorf("sandbox: start the network proxy for sandbox.network.allowedDomains: %w", err)
	}
	p.ln = ln
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second,
		ErrorLog: quiet, ConnState: p.track}
	go p.srv.Serve(ln)
	return p, warnings, nil
}

// Port is the loopback port the proxy listens on.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// Close stops the proxy and ends every connection and tunnel it holds.
func (p *Proxy) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.closed = true
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	clear(p.conns)
	p.mu.Unlock()
	err := p.srv.Close()
	for _, c := range conns {
		c.Close()
	}
	return err
}

// track keeps every client connection, hijacked tunnels included, for Close.
func (p *Proxy) track(c net.Conn, s http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch s {
	case http.StateNew:
		if p.closed {
			c.Close()
			return
		}
		p.conns[c] = struct{}{}
	case http.StateClosed:
		delete(p.conns, c)
	}
}

// Mark is the position to pass to RefusedSince: refusals after now.
func (p *Proxy) Mark() uint64 {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seq
}

// RefusedSince returns the refusals after mark, oldest first.
func (p *Proxy) RefusedSince(mark uint64) []Refusal {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Refusal
	for _, r := range p.refusals {
		if r.seq > mark {
			out = append(out, r)
		}
	}
	return out
}

func (p *Proxy) refuse(w http.ResponseWriter, host string, port int, why string) {
	p.mu.Lock()
	p.seq++
	p.refusals = append(p.refusals, Refusal{Host: host, Port: port, Why: why, seq: p.seq})
	if len(p.refusals) > maxRefusals {
		p.refusals = p.refusals[len(p.refusals)-maxRefusals:]
	}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Ouro-Sandbox", "refused")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, "ouro sandbox: the connection to %s was refused: %s\n", net.JoinHostPort(host, strconv.Itoa(port)), why)
}

// ServeHTTP handles CONNECT tunnels and absolute-form http:// requests.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		http.Error(w, "ouro sandbox proxy: only proxy requests (CONNECT host:port, or an absolute http:// URL) are served here", http.StatusBadRequest)
		return
	}
	if r.URL.Scheme != "http" {
		http.Error(w, fmt.Sprintf("ouro sandbox proxy: %s:// is not forwarded; https goes through CONNECT", r.URL.Scheme), http.StatusBadRequest)
		return
	}
	host, port, err := splitHostPort(r.URL.Host, 80)
	if err == nil && !validTarget(host) {
		err = fmt.Errorf("%q is not a host name", host)
	}
	if err != nil {
		http.Error(w, "ouro sandbox proxy: "+err.Error(), http.StatusBadRequest)
		return
	}
	addrs, why := p.check(r.Context(), host, port)
	if why != "" {
		p.refuse(w, host, port, why)
		return
	}
	rp := &httputil.ReverseProxy{
		// The request goes to the host that was checked, with that host in its Host
		// header, whatever Host header the client sent alongside the absolute URL.
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = "http", pr.In.URL.Host
			pr.Out.Host = ""
			pr.Out.Header.Del("Proxy-Authorization")
		},
		Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil,
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return p.dial(ctx, addrs, port) }},
		ErrorLog: quiet,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "ouro sandbox proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	rp.ServeHTTP(w, r)
}

func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := splitHostPort(r.Host, 0)
	if err != nil || port == 0 || !validTarget(host) {
		http.Error(w, "ouro sandbox proxy: CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	addrs, why := p.check(r.Context(), host, port)
	if why != "" {
		p.refuse(w, host, port, why)
		return
	}
	up, err := p.dial(r.Context(), addrs, port)
	if err != nil {
		http.Error(w, "ouro sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "ouro sandbox proxy: cannot tunnel on this connection", http.StatusInternalServerError)
		return
	}
	c, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[up] = struct{}{}
	p.mu.Unlock()
	defer func() {
		// A hijacked connection is no longer the server's: it reports no StateClosed.
		p.mu.Lock()
		delete(p.conns, up)
		delete(p.conns, c)
		p.mu.Unlock()
	}()
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		c.Close()
		up.Close()
		return
	}
	tunnel(c, buf.Reader, up)
}

// tunnel copies both ways until either side ends, then closes both.
func tunnel(client net.Conn, pending *bufio.Reader, up net.Conn) {
	done := make(chan struct{}, 2)
	go func() {
		io.Copy(up, io.MultiReader(pending, client)) // bytes the client sent early come first
		done <- struct{}{}
	}()
	go func() {
		io.Copy(client, up)
		done <- struct{}{}
	}()
	<-done
	client.Close()
	up.Close()
	<-done
}

// dial connects to the first of the checked addresses that answers. It never resolves
// the name again: the addresses are the ones the check approved (no DNS rebinding
// between the check and the connection).
func (p *Proxy) dial(ctx context.Context, addrs []netip.Addr, port int) (net.Conn, error) {
	var errs []error
	for _, a := range addrs {
		c, err := p.cfg.Dial(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, errors.New("no address to connect to")
	}
	return nil, errors.Join(errs...)
}

// check decides on host:port: the addresses to connect to, or why not (naming the
// setting that would allow it).
func (p *Proxy) check(ctx context.Context, host string, port int) ([]netip.Addr, string) {
	for _, d := range p.denied {
		if d.matchName(host, port) {
			return nil, fmt.Sprintf("%s is refused by the sandbox.network.deniedDomains entry %q", host, d.text)
		}
	}
	var match *domainPattern
	for i := range p.allowed {
		if p.allowed[i].matchName(host, port) {
			match = &p.allowed[i]
			break
		}
	}
	if match == nil {
		where := ""
		if len(p.cfg.Sources) > 0 {
			where = " (set in " + strings.Join(p.cfg.Sources, ", ") + ")"
		}
		return nil, fmt.Sprintf("%s is not in sandbox.network.allowedDomains%s; to allow it, add %q there", host, where, host)
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip.Unmap()}
	} else {
		rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		found, err := p.cfg.Resolve(rctx, host)
		if err != nil {
			return nil, fmt.Sprintf("%s could not be resolved: %v", host, err)
		}
		for _, a := range found {
			addrs = append(addrs, a.Unmap())
		}
		if len(addrs) == 0 {
			return nil, fmt.Sprintf("%s has no address", host)
		}
	}
	for _, a := range addrs {
		for _, d := range p.denied {
			if d.ip.IsValid() && d.ip == a {
				return nil, fmt.Sprintf("%s resolves to %s, which sandbox.network.deniedDomains refuses", host, a)
			}
		}
		if local(a) && !match.names(a) {
			return nil, fmt.Sprintf("%s resolves to %s, a local address (loopback, link-local or unspecified); only an allowedDomains entry naming that address itself, or \"localhost\" for loopback, reaches it", host, a)
		}
	}
	return addrs, ""
}

// local reports addresses a name must not lead to unless the entry names them: this
// machine's services, the cloud metadata service (link-local) and the like.
func local(a netip.Addr) bool {
	return a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast()
}

// domainPattern is one allowedDomains or deniedDomains entry.
type domainPattern struct {
	text     string
	host     string // lower case, without a trailing dot; for a wildcard, the part after "*."
	wildcard bool
	ip       netip.Addr // set when the entry is an IP address
	port     int        // 0: every port
}

func parseDomain(e string) (domainPattern, error) {
	d := domainPattern{text: e}
	s := strings.ToLower(strings.TrimSpace(e))
	if s == "" {
		return d, errors.New("it is empty")
	}
	if strings.Contains(s, "://") || strings.ContainsAny(s, "/?#@") {
		return d, errors.New("write a host name (example.com), not a URL")
	}
	host, port, err := splitHostPort(s, 0)
	if err != nil {
		return d, err
	}
	d.port = port
	if strings.HasPrefix(host, "*.") {
		d.wildcard, host = true, host[2:]
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if d.wildcard {
			return d, errors.New("a wildcard cannot precede an IP address")
		}
		d.ip = ip.Unmap()
	} else if !validHost(host) {
		if host == "*" || strings.Contains(host, "*") {
			return d, errors.New(`only a leading "*." is a wildcard (it matches subdomains); to allow every host, leave allowedDomains unset`)
		}
		return d, errors.New("it is not a host name")
	}
	d.host = host
	return d, nil
}

// matchName reports whether the entry covers host (as the client named it) on port.
func (d domainPattern) matchName(host string, port int) bool {
	if d.port != 0 && d.port != port {
		return false
	}
	if d.ip.IsValid() {
		ip, err := netip.ParseAddr(host)
		return err == nil && ip.Unmap() == d.ip
	}
	if d.wildcard {
		return strings.HasSuffix(host, "."+d.host)
	}
	return host == d.host
}

// names reports whether the entry itself names the local address a: the address, or
// "localhost" for a loopback address.
func (d domainPattern) names(a netip.Addr) bool {
	if d.ip.IsValid() {
		return d.ip == a
	}
	return !d.wildcard && d.host == "localhost" && a.IsLoopback()
}

// splitHostPort reads "host", "host:port", "[v6]:port" or a bare IPv6 address, and
// returns the host in lower case without a trailing dot; a missing port is def.
func splitHostPort(s string, def int) (string, int, error) {
	host, port := s, def
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("%q is not a port", p)
		}
		host, port = h, n
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	} else if strings.Count(s, ":") == 1 {
		return "", 0, fmt.Errorf("%q is not host:port", s)
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return "", 0, errors.New("the host is empty")
	}
	return host, port, nil
}

// validTarget accepts what a client may ask to connect to: an IP address or a DNS name.
func validTarget(h string) bool {
	_, err := netip.ParseAddr(h)
	return err == nil || validHost(h)
}

// validHost accepts DNS names: labels of letters, digits, '-' and '_', joined by dots.
func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
