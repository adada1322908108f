// Package storetest is the contract every mailbox.Store must pass: ids that grow in send
// order, pending messages per recipient until acknowledged, idempotent acknowledgement,
// teams kept apart, a bound on undelivered messages, and no message lost or duplicated
// among concurrent senders. A store's tests call Run with a constructor of empty stores.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/mailbox"
)

// Run runs the contract against stores made by open; each call must return an empty
// store, which Run closes.
func Run(t *testing.T, open func(t *testing.T) mailbox.Store) {
	ctx := context.Background()
	fresh := func(t *testing.T) mailbox.Store {
		s := open(t)
		t.Cleanup(func() { s.Close() })
		return s
	}
	send := func(t *testing.T, s mailbox.Store, team, from, to, text string) mailbox.Message {
		t.Helper()
		m, err := s.Send(ctx, team, mailbox.Message{From: from, To: to, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	ids := func(ms []mailbox.Message) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	t.Run("pending per recipient in send order until acknowledged", func(t *testing.T) {
		s := fresh(t)
		a := send(t, s, "t", "main", "w1", "one")
		send(t, s, "t", "main", "w2", "other")
		b := send(t, s, "t", "w2", "w1", "two")
		if a.ID == "" || a.ID == b.ID || a.Sent.IsZero() {
			t.Fatalf("Send must set a unique ID and Sent: %+v %+v", a, b)
		}
		got, err := s.Pending(ctx, "t", "w1")
		if err != nil || len(got) != 2 || got[0].ID != a.ID || got[1].ID != b.ID || got[0].Text != "one" || got[1].From != "w2" {
			t.Fatalf("Pending(w1) = %+v, %v; want one then two", got, err)
		}
		if err := s.Ack(ctx, "t", "w1", []string{a.ID}); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Pending(ctx, "t", "w1")
		if len(got) != 1 || got[0].ID != b.ID {
			t.Fatalf("after acknowledging %s, Pending(w1) = %v", a.ID, ids(got))
		}
		// Idempotent, and blind to other recipients' and unknown ids.
		if err := s.Ack(ctx, "t", "w1", []string{a.ID, "999999", "not-an-id"}); err != nil {
			t.Fatalf("acknowledging again or an unknown id: %v", err)
		}
		w2, _ := s.Pending(ctx, "t", "w2")
		if err := s.Ack(ctx, "t", "w1", ids(w2)); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Pending(ctx, "t", "w2"); len(got) != 1 {
			t.Fatalf("w1 acknowledged w2's message: Pending(w2) = %v", ids(got))
		}
	})
	t.Run("round trip of protocol fields", func(t *testing.T) {
		s := fresh(t)
		yes := true
		in := mailbox.Message{From: "w1", To: "main", Text: "plan: edit a.go", Summary: "my plan",
			Kind: mailbox.PlanApprovalResponse, RequestID: "plan-1", Approve: &yes}
		m, err := s.Send(ctx, "t", in)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.Pending(ctx, "t", "main")
		if len(got) != 1 {
			t.Fatalf("Pending(main) = %d messages", len(got))
		}
		g := got[0]
		if g.ID != m.ID || g.Summary != in.Summary || g.Kind != in.Kind || g.RequestID != in.RequestID || g.Approve == nil || !*g.Approve || g.Text != in.Text {
			t.Fatalf("round trip lost something: %+v", g)
		}
	})
	t.Run("ids grow and teams are apart", func(t *testing.T) {
		s := fresh(t)
		var last int
		for i := range 12 {
			m := send(t, s, "a", "main", "w", strconv.Itoa(i))
			n, err := strconv.Atoi(m.ID)
			if err != nil || n <= last {
				t.Fatalf("message %d got id %q after %d: ids must be increasing numbers", i, m.ID, last)
			}
			last = n
		}
		if got, _ := s.Pending(ctx, "b", "w"); len(got) != 0 {
			t.Fatalf("team b sees team a's messages: %v", ids(got))
		}
		if err := s.Ack(ctx, "b", "w", []string{"1"}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Pending(ctx, "a", "w"); len(got) != 12 || got[0].Text != "0" || got[11].Text != "11" {
			t.Fatalf("acknowledging in team b changed team a: %d pending", len(got))
		}
		recent, err := s.Recent(ctx, "a", 3)
		if err != nil || len(recent) != 3 || recent[0].Text != "9" || recent[2].Text != "11" {
			t.Fatalf("Recent(3) = %+v, %v; want the last three, oldest first", recent, err)
		}
	})
	t.Run("bad messages are refused", func(t *testing.T) {
		s := fresh(t)
		for _, m := range []mailbox.Message{{From: "main", Text: "x"}, {From: "main", To: "w", Text: "  "},
			{From: "main", To: "w", Text: string(make([]byte, mailbox.MaxText+1))}} {
			if _, err := s.Send(ctx, "t", m); err == nil {
				t.Errorf("Send(%.40q to %q) was accepted", m.Text, m.To)
			}
		}
	})
	t.Run("a full mailbox refuses more", func(t *testing.T) {
		s := fresh(t)
		for i := range mailbox.MaxPending {
			if _, err := s.Send(ctx, "t", mailbox.Message{From: "main", To: "w", Text: "x" + strconv.Itoa(i)}); err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
		}
		// The cap guards against a flood, it is no exact quota: a replicated store may
		// count an acknowledged send a moment late, so a few more may pass before it holds.
		extra := 0
		for {
			_, err := s.Send(ctx, "t", mailbox.Message{From: "main", To: "w", Text: "one too many"})
			if errors.Is(err, mailbox.ErrFull) {
				break
			}
			if err != nil || extra == 5 {
				t.Fatalf("message %d past MaxPending: %v, want ErrFull", extra+1, err)
			}
			extra++
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := s.Send(ctx, "t", mailbox.Message{From: "main", To: "other", Text: "fine"}); err != nil {
			t.Fatalf("another recipient's mailbox is not full: %v", err)
		}
	})
	t.Run("concurrent senders lose and duplicate nothing", func(t *testing.T) {
		s := fresh(t)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 10 {
					if _, err := s.Send(ctx, "t", mailbox.Message{From: "w" + strconv.Itoa(g), To: "main", Text: fmt.Sprintf("%d-%d", g, i)}); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		got, err := s.Pending(ctx, "t", "main")
		if err != nil {
			t.Fatal(err)
		}
		seenID, seenText := map[string]bool{}, map[string]bool{}
		for _, m := range got {
			if seenID[m.ID] || seenText[m.Text] {
				t.Fatalf("duplicate among concurrent sends: %+v", m)
			}
			seenID[m.ID], seenText[m.Text] = true, true
		}
		if len(got) != 80 {
			t.Fatalf("%d of 80 messages stored", len(got))
		}
	})
}
