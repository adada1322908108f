// Package natstest starts embedded NATS servers with JetStream for tests: one server, or
// a 3-node JetStream cluster, each on free loopback ports with its store in a temporary
// folder, torn down when the test ends. Only tests import it, so the server is never
// linked into the ouro binary.
package natstest

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Cluster is a set of embedded servers that form one JetStream cluster (or one server).
type Cluster struct {
	t       testing.TB
	opts    []*server.Options
	servers []*server.Server
}

// Server starts one JetStream server and returns its URL.
func Server(t testing.TB) *Cluster {
	return start(t, 1)
}

// Start3 starts a 3-node JetStream cluster and waits until it has a meta leader.
func Start3(t testing.TB) *Cluster {
	return start(t, 3)
}

// NoJetStream starts a server without JetStream and returns its URL.
func NoJetStream(t testing.TB) string {
	o := &server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true}
	s, err := server.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	t.Cleanup(s.Shutdown)
	return s.ClientURL()
}

func freePorts(t testing.TB, n int) []int {
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

func start(t testing.TB, n int) *Cluster {
	c := &Cluster{t: t}
	dir := t.TempDir()
	ports := freePorts(t, 2*n)
	var routes []*url.URL
	for i := range n {
		routes = append(routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", ports[n+i])})
	}
	for i := range n {
		o := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1",
			Port:       ports[i],
			JetStream:  true,
			StoreDir:   filepath.Join(dir, fmt.Sprintf("n%d", i+1)),
			NoLog:      true,
			NoSigs:     true,
		}
		if n > 1 {
			o.Cluster = server.ClusterOpts{Name: "ouro-test", Host: "127.0.0.1", Port: ports[n+i]}
			o.Routes = routes
		}
		c.opts = append(c.opts, o)
		c.servers = append(c.servers, nil)
	}
	t.Cleanup(c.Shutdown)
	for i := range n {
		c.Restart(i)
	}
	if n > 1 {
		c.WaitLeader()
		c.waitPeers(n)
	}
	return c
}

// waitPeers waits until the meta leader counts n peers online with JetStream: before
// that, a stream asking for n replicas is refused ("no suitable peers for placement").
func (c *Cluster) waitPeers(n int) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, s := range c.servers {
			if s != nil && s.JetStreamIsLeader() && len(s.JetStreamClusterPeers()) >= n {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("the JetStream cluster did not see its %d peers within 30s", n)
}

// Restart starts server i (again, with the store it had).
func (c *Cluster) Restart(i int) {
	s, err := server.NewServer(c.opts[i])
	if err != nil {
		c.t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(20 * time.Second) {
		c.t.Fatalf("NATS server %d did not start", i+1)
	}
	c.servers[i] = s
}

// Kill stops server i at once.
func (c *Cluster) Kill(i int) {
	if s := c.servers[i]; s != nil {
		s.Shutdown()
		s.WaitForShutdown()
		c.servers[i] = nil
	}
}

// WaitLeader waits until the running servers agree on a JetStream meta leader.
func (c *Cluster) WaitLeader() {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, s := range c.servers {
			if s != nil && s.JetStreamIsLeader() {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatal("the JetStream cluster elected no leader within 30s")
}

// URL is a store URL naming every server of the cluster.
func (c *Cluster) URL() string {
	u := ""
	for i, o := range c.opts {
		if i > 0 {
			u += ","
		}
		u += fmt.Sprintf("nats://127.0.0.1:%d", o.Port)
	}
	return u
}

// Shutdown stops every server.
func (c *Cluster) Shutdown() {
	for i := range c.servers {
		c.Kill(i)
	}
}
