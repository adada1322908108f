package natsstore_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/mailbox/natsstore"
	"github.com/ouroagent/ouro/mailbox/storetest"
)

func contract(t *testing.T, url string) {
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) mailbox.Store {
		s, err := natsstore.Open(context.Background(), fmt.Sprintf("%s?ns=m%d", url, n.Add(1)), natsstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestContractSingleServer(t *testing.T) { contract(t, natstest.Server(t).URL()) }

func TestContractCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("3-node cluster")
	}
	contract(t, natstest.Start3(t).URL())
}

// TestMain lets the crash test run a recipient in another process.
func TestMain(m *testing.M) {
	if url := os.Getenv("MAILBOX_RECIPIENT_STORE"); url != "" {
		s, err := natsstore.Open(context.Background(), url, natsstore.Options{AckWait: time.Second})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		ms, err := s.Pending(context.Background(), "t", "w1")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var ids []string
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		// "In the transcript": the parent reads the ids; then this process is killed
		// before it acknowledges them.
		fmt.Println(strings.Join(ids, " "))
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A recipient's process takes its messages, puts them in its transcript and is killed
// with kill -9 before acknowledging. Its next process acknowledges the ids its transcript
// holds: JetStream redelivers the messages after the ack wait, and they are acknowledged
// there and then, never delivered twice; a message sent since is delivered once.
func TestKilledRecipientGetsEachMessageOnce(t *testing.T) {
	url := natstest.Server(t).URL()
	ctx := context.Background()
	s, err := natsstore.Open(ctx, url, natsstore.Options{AckWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 3 {
		if _, err := s.Send(ctx, "t", mailbox.Message{From: "main", To: "w1", Text: fmt.Sprint("task ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MAILBOX_RECIPIENT_STORE="+url)
	cmd.Stderr = os.Stderr
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill()
	cmd.Wait()
	transcript := strings.Fields(line)
	if len(transcript) != 3 {
		t.Fatalf("the first process took %q", line)
	}
	next, err := natsstore.Open(ctx, url, natsstore.Options{AckWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if err := next.Ack(ctx, "t", "w1", transcript); err != nil {
		t.Fatal(err)
	}
	late, err := s.Send(ctx, "t", mailbox.Message{From: "main", To: "w1", Text: "sent after the crash"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var got []mailbox.Message
	for time.Now().Before(deadline) {
		ms, err := next.Pending(ctx, "t", "w1")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			for _, id := range transcript {
				if m.ID == id {
					t.Fatalf("message %s, already in the transcript, was delivered again", id)
				}
			}
		}
		got = ms
		time.Sleep(200 * time.Millisecond)
	}
	if len(got) != 1 || got[0].ID != late.ID {
		t.Fatalf("pending after the redeliveries: %+v, want only %s", got, late.ID)
	}
	if err := next.Ack(ctx, "t", "w1", []string{late.ID}); err != nil {
		t.Fatal(err)
	}
	if ms, _ := next.Pending(ctx, "t", "w1"); len(ms) != 0 {
		t.Fatalf("after acknowledging everything: %+v", ms)
	}
}
