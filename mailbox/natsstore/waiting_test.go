package natsstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/mailbox/natsstore"
)

// Waiting counts a recipient's undelivered messages without taking them: the recipient
// gets them at once afterwards (Pending by a status reader would hold them for the ack
// wait), before and after its consumer exists, and acknowledged ones are not counted.
func TestWaitingCountsWithoutTaking(t *testing.T) {
	ctx := context.Background()
	url := natstest.Server(t).URL()
	open := func() *natsstore.Store {
		s, err := natsstore.Open(ctx, url, natsstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	viewer, recipient := open(), open()
	if n, err := viewer.Waiting(ctx, "crew", "w1"); err != nil || n != 0 {
		t.Fatalf("a team with no mailboxes: %d, %v", n, err)
	}
	for _, text := range []string{"one", "two"} {
		if _, err := recipient.Send(ctx, "crew", mailbox.Message{From: "main", To: "w1", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	// The consumer's count follows a send within moments.
	if n, err := waitCount(ctx, viewer, 2); err != nil || n != 2 {
		t.Fatalf("two sent: %d waiting, %v", n, err)
	}
	got, err := recipient.Pending(ctx, "crew", "w1")
	if err != nil || len(got) != 2 {
		t.Fatalf("the recipient got %d of its 2 messages after they were counted (%v)", len(got), err)
	}
	if err := recipient.Ack(ctx, "crew", "w1", []string{got[0].ID}); err != nil {
		t.Fatal(err)
	}
	if n, err := waitCount(ctx, viewer, 1); err != nil || n != 1 {
		t.Fatalf("one acknowledged: %d waiting, %v", n, err)
	}
}

func waitCount(ctx context.Context, s *natsstore.Store, want int) (int, error) {
	deadline := time.Now().Add(3 * time.Second)
	for {
		n, err := s.Waiting(ctx, "crew", "w1")
		if err != nil || n == want || time.Now().After(deadline) {
			return n, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}
