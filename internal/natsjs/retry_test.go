package natsjs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/internal/natstest"
)

// A request whose answer was lost (a timeout) or that nobody took (a leader election) is
// sent again; any other error is not; a publish sent twice with one message id is
// stored once.
func TestRetry(t *testing.T) {
	c := &natsjs.Conn{Cfg: natsjs.Config{Timeout: 5 * time.Second}}
	for _, first := range []error{context.DeadlineExceeded, nats.ErrTimeout, nats.ErrNoResponders} {
		n := 0
		err := c.Retry(context.Background(), func(context.Context) error {
			n++
			if n == 1 {
				return first
			}
			return nil
		})
		if err != nil || n != 2 {
			t.Errorf("after %v: %d attempts, %v", first, n, err)
		}
	}
	n := 0
	bad := errors.New("bad request")
	if err := c.Retry(context.Background(), func(context.Context) error { n++; return bad }); err != bad || n != 1 {
		t.Errorf("a plain error: %d attempts, %v", n, err)
	}

	srv := natstest.Server(t)
	cfg, err := natsjs.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := natsjs.Connect(context.Background(), cfg, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	st, err := conn.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "dedup", Subjects: []string{"dedup.>"}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second send stands for one whose first answer was lost
		if err := conn.Retry(ctx, func(actx context.Context) error {
			_, err := conn.JS.Publish(actx, "dedup.x", []byte("once"), jetstream.WithMsgID("m1"))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Fatalf("%d messages stored, want 1", info.State.Msgs)
	}
}

// A compare-and-set write sent again after it was stored (its answer lost) is refused
// for its revision — the stream compares revisions before it looks for duplicates — and
// the key's last message, carrying the write's id, shows it was stored: Batch then
// answers with that revision instead of a conflict.
func TestWriteSentTwiceIsStoredOnce(t *testing.T) {
	srv := natstest.Server(t)
	cfg, err := natsjs.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := natsjs.Connect(context.Background(), cfg, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	b, err := conn.Bucket(ctx, "twice", "test")
	if err != nil {
		t.Fatal(err)
	}
	rev, err := conn.Batch(ctx, b.Name, []natsjs.Write{{Key: "k", Value: []byte("v1"), Rev: 0}})
	if err != nil {
		t.Fatal(err)
	}
	send := func() string {
		m := nats.NewMsg("$KV." + b.Name + ".k")
		m.Header.Set("Nats-Expected-Last-Subject-Sequence", fmt.Sprint(rev))
		m.Header.Set("Nats-Msg-Id", "same-write")
		m.Data = []byte("v2")
		r, err := conn.NC.RequestMsg(m, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return string(r.Data)
	}
	first, again := send(), send()
	if !strings.Contains(again, "wrong last sequence") {
		t.Fatalf("the second send: %s (first %s)", again, first)
	}
	seq, ok := natsjs.StoredBy(conn, ctx, b.Name, "k", "same-write")
	if !ok || seq != rev+1 {
		t.Fatalf("the stored write was not recognised: %d %v (first answer %s)", seq, ok, first)
	}
	if _, ok := natsjs.StoredBy(conn, ctx, b.Name, "k", "another-write"); ok {
		t.Fatal("another write was taken for this one")
	}
	es, err := b.Latest(ctx, "k")
	if err != nil || len(es) != 1 || string(es[0].Value) != "v2" {
		t.Fatalf("%+v %v", es, err)
	}
}

// An attempt that needs longer than the first one's 2 s gets it on a later attempt.
func TestRetryGivesSlowRequestsTime(t *testing.T) {
	c := &natsjs.Conn{Cfg: natsjs.Config{Timeout: 10 * time.Second}}
	n := 0
	err := c.Retry(context.Background(), func(ctx context.Context) error {
		n++
		select {
		case <-time.After(3 * time.Second): // slower than the first attempt allows
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	if err != nil || n != 2 {
		t.Fatalf("%d attempts, %v", n, err)
	}
}
