package natsstore_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/task/natsstore"
	"github.com/ouroagent/ouro/task/storetest"
)

// contract runs the store contract on url, each of its tests in a namespace of its own.
func contract(t *testing.T, url string) {
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) task.Store {
		s, err := natsstore.Open(context.Background(), fmt.Sprintf("%s?ns=c%d", url, n.Add(1)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestContractSingleServer(t *testing.T) {
	contract(t, natstest.Server(t).URL())
}

func TestContractCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("3-node cluster")
	}
	contract(t, natstest.Start3(t).URL())
}

// A worker that dies stops renewing its claim; once the lease has run out the task goes
// back to pending for everyone, through the store's compare-and-set.
func TestDeadWorkersClaimLapses(t *testing.T) {
	url := natstest.Server(t).URL()
	ctx := context.Background()
	open := func() *natsstore.Store {
		s, err := natsstore.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	dead := task.NewBoard(task.Config{Store: open(), List: "lease", Holder: "dead", Lease: time.Minute, Now: clock})
	tk, err := dead.Create(ctx, "work", "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	me := "dead-worker"
	if _, err := dead.Update(ctx, tk.ID, task.Update{Owner: &me}); err != nil {
		t.Fatal(err)
	}
	live := task.NewBoard(task.Config{Store: open(), List: "lease", Holder: "live", Lease: time.Minute, Now: clock})
	other := "live-worker"
	if _, err := live.Update(ctx, tk.ID, task.Update{Owner: &other}); err == nil {
		t.Fatal("a live claim was taken over")
	}
	now = now.Add(2 * time.Minute) // the dead worker renewed nothing
	got, err := live.Get(ctx, tk.ID)
	if err != nil || got.Owner != "" || got.Status != task.Pending || !strings.Contains(got.Note, "lapsed") {
		t.Fatalf("after the lease ran out: %+v, %v", got, err)
	}
	if _, err := live.Update(ctx, tk.ID, task.Update{Owner: &other}); err != nil {
		t.Fatalf("claiming the lapsed task: %v", err)
	}
}

// A 3-node cluster keeps a list (3 replicas) working when a node dies, with claims
// still exactly once.
func TestNodeDiesMidClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("3-node cluster")
	}
	c := natstest.Start3(t)
	ctx := context.Background()
	s, err := natsstore.Open(ctx, c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := task.NewBoard(task.Config{Store: s, List: "ha", Holder: "h"})
	for range 10 {
		if _, err := b.Create(ctx, "t", "", "", nil); err != nil {
			t.Fatal(err)
		}
	}
	c.Kill(0)
	c.WaitLeader()
	owner := "w"
	for i := 1; i <= 10; i++ {
		var err error
		for try := 0; try < 50; try++ { // the stream may be electing a new leader
			if _, err = b.Update(ctx, fmt.Sprint(i), task.Update{Owner: &owner}); err == nil || strings.Contains(err.Error(), "already") {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("claiming #%d with a node down: %v", i, err)
		}
	}
	all, err := s.All(ctx, "ha")
	if err != nil || len(all) != 10 {
		t.Fatalf("%d tasks, %v", len(all), err)
	}
	for _, tk := range all {
		if tk.Owner != "w" {
			t.Fatalf("#%s owner %q", tk.ID, tk.Owner)
		}
	}
}

func TestClearErrors(t *testing.T) {
	ctx := context.Background()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := l.Addr().String()
	l.Close()
	cases := []struct{ url, want string }{
		{"http://x:4222", "scheme"},
		{"nats://", "names no host"},
		{"nats://h:99999", "port"},
		{"nats://h:4222?bogus=1", "unknown option"},
		{"nats://h:4222?creds=/nonexistent/x.creds", "cannot be read"},
		{"nats://h:4222?cert=/x", "without its key"},
		{"nats://" + dead + "?timeout=500ms", "cannot reach a NATS server"},
		{natstest.NoJetStream(t) + "?timeout=1s", "no JetStream"},
	}
	for _, c := range cases {
		_, err := natsstore.Open(ctx, c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.url, err, c.want)
		}
	}
}

// BenchmarkClaim reports claims per second on one list on an embedded JetStream server
// (the SQLite store's BenchmarkClaim is the same loop); BenchmarkClaimCluster on a
// 3-node cluster, where each claim is replicated to a quorum before it is acknowledged.
func BenchmarkClaim(b *testing.B) { benchClaim(b, natstest.Server(b).URL()) }

func BenchmarkClaimCluster(b *testing.B) { benchClaim(b, natstest.Start3(b).URL()) }

func benchClaim(b *testing.B, url string) {
	ctx := context.Background()
	s, err := natsstore.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	board := task.NewBoard(task.Config{Store: s, List: "bench", Holder: "me"})
	for range b.N {
		if _, err := board.Create(ctx, "t", "", "", nil); err != nil {
			b.Fatal(err)
		}
	}
	owner := "me"
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		if _, err := board.Update(ctx, fmt.Sprint(i+1), task.Update{Owner: &owner}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "claims/s")
}
