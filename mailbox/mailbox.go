// Package mailbox carries messages between the agents of a team (SendMessage): each agent
// has a mailbox, kept behind a small Store (in memory, SQLite in state.db, or a
// distributed store later) that every implementation proves with mailbox/storetest.
//
// Delivery is exactly once. An Inbox hands a recipient's pending messages to its next
// model request as one user message, each message tagged with its id; only once that
// message is in the recipient's persisted transcript does it acknowledge them. A process
// that dies between the two finds the ids in the transcript when it starts again
// (IDsIn), acknowledges them and does not deliver them a second time.
package mailbox

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind says what a message is: plain text, or one step of a protocol. Protocol messages
// carry a RequestID; replies name the request they answer.
type Kind string

// The kinds of message.
const (
	Text                 Kind = ""
	PlanApprovalRequest  Kind = "plan_approval_request"
	PlanApprovalResponse Kind = "plan_approval_response"
	ShutdownRequest      Kind = "shutdown_request"
	ShutdownResponse     Kind = "shutdown_response"
)

// Message is one message between two agents of a team. From and To are agent names
// ("main" for the lead).
type Message struct {
	// ID is given by the store when the message is sent: unique in its team.
	ID        string    `json:"id"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	Text      string    `json:"text"`
	Summary   string    `json:"summary,omitempty"`
	Kind      Kind      `json:"kind,omitempty"`
	RequestID string    `json:"request_id,omitempty"`
	Approve   *bool     `json:"approve,omitempty"`
	Sent      time.Time `json:"sent,omitzero"`
}

// Limits keep a confused or hostile agent from filling the store.
const (
	MaxText    = 64 << 10
	MaxSummary = 200
	MaxName    = 64
	MaxPending = 1000 // undelivered messages per recipient
)

// Store keeps the messages of teams. Methods are safe for concurrent use, from any number
// of processes sharing the store. Every Store must pass storetest.Run.
type Store interface {
	// Send stores m for m.To and returns it with its ID (and Sent, when zero) set. IDs
	// grow in the order messages are sent within a team.
	Send(ctx context.Context, team string, m Message) (Message, error)
	// Pending returns the messages for to that are not acknowledged, oldest first.
	Pending(ctx context.Context, team, to string) ([]Message, error)
	// Ack marks messages of to as delivered; ids already acknowledged, unknown or of
	// another recipient are ignored.
	Ack(ctx context.Context, team, to string, ids []string) error
	// Recent returns the last n messages of the team, delivered or not, oldest first.
	Recent(ctx context.Context, team string, n int) ([]Message, error)
	// Close releases the store.
	Close() error
}

// ErrFull: the recipient has MaxPending undelivered messages.
var ErrFull = errors.New("the recipient's mailbox is full")

// Check validates a message before it is sent; its errors are written for the model.
func Check(m Message) error {
	switch {
	case strings.TrimSpace(m.To) == "":
		return errors.New("to is empty: name a teammate, or \"main\" for the lead")
	case len(m.To) > MaxName || len(m.From) > MaxName:
		return fmt.Errorf("agent names are at most %d bytes", MaxName)
	case len(m.Text) > MaxText:
		return fmt.Errorf("the message is %d bytes; keep it under %d (write long content to a file and name it)", len(m.Text), MaxText)
	case len(m.Summary) > MaxSummary:
		return fmt.Errorf("summary is %d bytes; keep it to 5-10 words", len(m.Summary))
	case m.Kind == Text && strings.TrimSpace(m.Text) == "":
		return errors.New("the message is empty")
	}
	return nil
}

// MemStore is a Store in memory, for one process (tests, a session whose state.db cannot
// be opened).
type MemStore struct {
	mu      sync.Mutex
	teams   map[string]*memTeam
	changes uint64 // writes so far: Version
}

type memTeam struct {
	next  int
	msgs  []Message
	acked map[string]bool
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{teams: map[string]*memTeam{}} }

func (s *MemStore) team(name string) *memTeam {
	t := s.teams[name]
	if t == nil {
		t = &memTeam{acked: map[string]bool{}}
		s.teams[name] = t
	}
	return t
}

// Send implements Store.
func (s *MemStore) Send(_ context.Context, team string, m Message) (Message, error) {
	if err := Check(m); err != nil {
		return Message{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.team(team)
	n := 0
	for _, o := range t.msgs {
		if o.To == m.To && !t.acked[o.ID] {
			n++
		}
	}
	if n >= MaxPending {
		return Message{}, ErrFull
	}
	t.next++
	m.ID = strconv.Itoa(t.next)
	if m.Sent.IsZero() {
		m.Sent = time.Now().UTC()
	}
	t.msgs = append(t.msgs, m)
	s.changes++
	return m, nil
}

// Pending implements Store.
func (s *MemStore) Pending(_ context.Context, team, to string) ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.team(team)
	var out []Message
	for _, m := range t.msgs {
		if m.To == to && !t.acked[m.ID] {
			out = append(out, m)
		}
	}
	return out, nil
}

// Ack implements Store.
func (s *MemStore) Ack(_ context.Context, team, to string, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.team(team)
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for _, m := range t.msgs {
		if m.To == to && want[m.ID] {
			t.acked[m.ID] = true
		}
	}
	s.changes++
	return nil
}

// Version changes with every write: an idle teammate is woken to look for new messages
// only when it did.
func (s *MemStore) Version(context.Context) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes, nil
}

// Recent implements Store.
func (s *MemStore) Recent(_ context.Context, team string, n int) ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := s.team(team).msgs
	if n > 0 && len(msgs) > n {
		msgs = msgs[len(msgs)-n:]
	}
	return append([]Message(nil), msgs...), nil
}

// Close implements Store.
func (s *MemStore) Close() error { return nil }

var _ Store = (*MemStore)(nil)
