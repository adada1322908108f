// Package natsstore is the mailbox.Store on NATS JetStream, for teams whose agents run on
// several machines. Each team is a stream (ouro-mail-<team>) with a subject per agent
// (ouro.mail.<team>.<agent>); a message's id is its stream sequence, so ids grow in send
// order within a team. Each recipient has a durable consumer (to-<agent>) that keeps what
// it has acknowledged: Pending takes the recipient's messages from it and holds them
// unacknowledged, and Ack acknowledges them only when the Inbox says they are in the
// recipient's transcript. A process that dies holding messages never acknowledges them:
// JetStream delivers them again after the ack wait, and the Inbox, finding their ids in
// the transcript, acknowledges them without delivering them twice.
package natsstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/mailbox"
)

// DefaultAckWait is how long messages taken by Pending stay with their recipient's
// process before JetStream offers them again (to its next process, if it died).
const DefaultAckWait = time.Minute

// Options tune Open.
type Options struct {
	// AckWait overrides DefaultAckWait.
	AckWait time.Duration
}

// Store is a mailbox.Store on JetStream.
type Store struct {
	conn    *natsjs.Conn
	ackWait time.Duration

	mu      sync.Mutex
	streams map[string]bool
	cons    map[string]jetstream.Consumer       // team/agent → its durable consumer
	setup   sync.Mutex                          // one creation of a stream or consumer at a time
	held    map[string]map[uint64]jetstream.Msg // team/agent → taken, not acknowledged
	early   map[string]map[uint64]bool          // acknowledged before they came back
}

// Open connects to the store URL raw (see natsjs.Parse).
func Open(ctx context.Context, raw string, o Options) (*Store, error) {
	conn, err := natsjs.Dial(ctx, raw, "ouro mailbox")
	if err != nil {
		return nil, err
	}
	if o.AckWait <= 0 {
		o.AckWait = DefaultAckWait
	}
	return &Store{conn: conn, ackWait: o.AckWait, streams: map[string]bool{}, cons: map[string]jetstream.Consumer{}, held: map[string]map[uint64]jetstream.Msg{}, early: map[string]map[uint64]bool{}}, nil
}

// Close implements mailbox.Store. It gives back the messages this process took and did
// not acknowledge, so that the recipient's next process gets them at once rather than
// after the ack wait (one that did reach a transcript is recognised there, IDsIn, and
// acknowledged, not delivered again), then closes the connection.
func (s *Store) Close() error {
	s.mu.Lock()
	var held []jetstream.Msg
	for _, ms := range s.held {
		for _, m := range ms {
			held = append(held, m)
		}
	}
	s.held = map[string]map[uint64]jetstream.Msg{}
	s.mu.Unlock()
	for _, m := range held {
		_ = m.Nak() // if it is lost, the ack wait gives the message back all the same
	}
	if len(held) > 0 {
		_ = s.conn.NC.FlushTimeout(2 * time.Second)
	}
	s.conn.Close()
	return nil
}

func (s *Store) stream(team string) string { return s.conn.Cfg.Name("mail", team) }

func (s *Store) subject(team, agent string) string {
	return s.conn.Cfg.Subject() + ".mail." + natsjs.Escape(team) + "." + natsjs.Escape(agent)
}

func (s *Store) ensure(ctx context.Context, team string) (string, error) {
	name := s.stream(team)
	s.mu.Lock()
	ok := s.streams[name]
	s.mu.Unlock()
	if ok {
		return name, nil
	}
	_, err := s.conn.JS.CreateStream(ctx, jetstream.StreamConfig{Name: name, Description: "ouro team " + team + ": messages between its agents",
		Subjects: []string{s.conn.Cfg.Subject() + ".mail." + natsjs.Escape(team) + ".*"}, Storage: jetstream.FileStorage,
		Replicas: s.conn.Replicas(), MaxMsgSize: mailbox.MaxText + 8<<10})
	if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return "", fmt.Errorf("team %s's mailboxes (JetStream stream %s): %w", team, name, err)
	}
	s.mu.Lock()
	s.streams[name] = true
	s.mu.Unlock()
	return name, nil
}

// consumer is the durable consumer of agent's messages.
func (s *Store) consumer(ctx context.Context, team, agent string) (jetstream.Consumer, error) {
	key := team + "\x00" + agent
	s.mu.Lock()
	c := s.cons[key]
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	s.setup.Lock()
	defer s.setup.Unlock()
	s.mu.Lock()
	c = s.cons[key]
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	name, err := s.ensure(ctx, team)
	if err != nil {
		return nil, err
	}
	c, err = s.conn.JS.CreateOrUpdateConsumer(ctx, name, jetstream.ConsumerConfig{Durable: "to-" + natsjs.Escape(agent),
		FilterSubject: s.subject(team, agent), AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverAllPolicy,
		AckWait: s.ackWait, MaxAckPending: 2 * mailbox.MaxPending, Description: "ouro: " + agent + "'s mailbox"})
	if err != nil {
		return nil, fmt.Errorf("%s's mailbox in team %s: %w", agent, team, err)
	}
	s.mu.Lock()
	s.cons[key] = c
	s.mu.Unlock()
	return c, nil
}

// Send implements mailbox.Store.
func (s *Store) Send(ctx context.Context, team string, m mailbox.Message) (mailbox.Message, error) {
	if err := mailbox.Check(m); err != nil {
		return mailbox.Message{}, err
	}
	c, err := s.consumer(ctx, team, m.To)
	if err != nil {
		return mailbox.Message{}, err
	}
	// Both ride out a leader election (a node just died): nobody took the request, so
	// nothing was read or stored yet.
	var info *jetstream.ConsumerInfo
	err = s.conn.Retry(ctx, func(ctx context.Context) (err error) {
		info, err = c.Info(ctx)
		return err
	})
	if err != nil {
		return mailbox.Message{}, fmt.Errorf("%s's mailbox in team %s: %w", m.To, team, err)
	}
	if info.NumPending+uint64(info.NumAckPending) >= mailbox.MaxPending {
		return mailbox.Message{}, mailbox.ErrFull
	}
	if m.Sent.IsZero() {
		m.Sent = time.Now().UTC()
	}
	m.ID = ""
	data, err := json.Marshal(m)
	if err != nil {
		return mailbox.Message{}, err
	}
	ack, err := s.publish(ctx, s.subject(team, m.To), data)
	if err != nil {
		return mailbox.Message{}, fmt.Errorf("sending to %s in team %s: %w", m.To, team, err)
	}
	m.ID = strconv.FormatUint(ack.Sequence, 10)
	return m, nil
}

// publish stores one message, exactly once, within the connection's timeout. It carries
// an id of its own (Nats-Msg-Id), so that it can be sent again when its answer was lost:
// to a node that died with the request, or past a leader election. The stream drops the
// copy of a message it already holds (its duplicate window) and answers with the first
// one's sequence.
func (s *Store) publish(ctx context.Context, subject string, data []byte) (*jetstream.PubAck, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	id := hex.EncodeToString(b[:])
	var ack *jetstream.PubAck
	err := s.conn.Retry(ctx, func(actx context.Context) (err error) {
		ack, err = s.conn.JS.Publish(actx, subject, data, jetstream.WithMsgID(id))
		return err
	})
	return ack, err
}

func decode(data []byte, seq uint64) (mailbox.Message, bool) {
	var m mailbox.Message
	if err := json.Unmarshal(data, &m); err != nil {
		return m, false
	}
	m.ID = strconv.FormatUint(seq, 10)
	return m, true
}

// Pending implements mailbox.Store: the messages taken from the recipient's consumer
// and not yet acknowledged, oldest first.
func (s *Store) Pending(ctx context.Context, team, to string) ([]mailbox.Message, error) {
	c, err := s.consumer(ctx, team, to)
	if err != nil {
		return nil, err
	}
	key := team + "\x00" + to
	// On a cluster the consumer may not have seen the newest messages yet: take until it
	// has delivered the last one the stream's leader holds for to (or 3s have passed).
	var last uint64
	if st, err := s.conn.JS.Stream(ctx, s.stream(team)); err == nil {
		if m, err := st.GetLastMsgForSubject(ctx, s.subject(team, to)); err == nil {
			last = m.Sequence
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		batch, err := c.FetchNoWait(mailbox.MaxPending)
		if err != nil {
			return nil, fmt.Errorf("%s's mailbox in team %s: %w", to, team, err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			md, err := m.Metadata()
			if err != nil {
				continue
			}
			seq := md.Sequence.Stream
			s.mu.Lock()
			if s.early[key][seq] {
				// Acknowledged (it is in the transcript) before it came back: ack it now.
				delete(s.early[key], seq)
				s.mu.Unlock()
				m.DoubleAck(ctx)
				continue
			}
			if s.held[key] == nil {
				s.held[key] = map[uint64]jetstream.Msg{}
			}
			s.held[key][seq] = m
			s.mu.Unlock()
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return nil, fmt.Errorf("%s's mailbox in team %s: %w", to, team, err)
		}
		if n > 0 {
			continue
		}
		if last == 0 || time.Now().After(deadline) {
			break
		}
		info, err := c.Info(ctx)
		if err != nil || info.Delivered.Stream >= last {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.mu.Lock()
	var seqs []uint64
	for seq := range s.held[key] {
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	out := make([]mailbox.Message, 0, len(seqs))
	for _, seq := range seqs {
		if m, ok := decode(s.held[key][seq].Data(), seq); ok {
			out = append(out, m)
		}
	}
	s.mu.Unlock()
	return out, nil
}

// Ack implements mailbox.Store. A message this process holds is acknowledged at once;
// one of to's that another (dead) process took is acknowledged when it comes back.
func (s *Store) Ack(ctx context.Context, team, to string, ids []string) error {
	key := team + "\x00" + to
	var later []uint64
	for _, id := range ids {
		seq, err := strconv.ParseUint(id, 10, 64)
		if err != nil || seq == 0 {
			continue
		}
		s.mu.Lock()
		m := s.held[key][seq]
		s.mu.Unlock()
		if m == nil {
			later = append(later, seq)
			continue
		}
		if err := m.DoubleAck(ctx); err != nil {
			return fmt.Errorf("acknowledging message %s to %s: %w", id, to, err)
		}
		s.mu.Lock()
		delete(s.held[key], seq)
		s.mu.Unlock()
	}
	if len(later) == 0 {
		return nil
	}
	// Only a message that exists and is to's may be remembered: an id not yet given
	// must not silence a future message.
	st, err := s.conn.JS.Stream(ctx, s.stream(team))
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, seq := range later {
		raw, err := st.GetMsg(ctx, seq)
		if err != nil || raw.Subject != s.subject(team, to) {
			continue
		}
		s.mu.Lock()
		if s.early[key] == nil {
			s.early[key] = map[uint64]bool{}
		}
		s.early[key][seq] = true
		s.mu.Unlock()
	}
	return nil
}

// Recent implements mailbox.Store: the team's last n messages, oldest first.
func (s *Store) Recent(ctx context.Context, team string, n int) ([]mailbox.Message, error) {
	st, err := s.conn.JS.Stream(ctx, s.stream(team))
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []mailbox.Message
	for seq := st.CachedInfo().State.LastSeq; seq > 0 && len(out) < n; seq-- {
		raw, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m, ok := decode(raw.Data, seq); ok {
			out = append(out, m)
		}
	}
	slices.Reverse(out)
	return out, nil
}

var _ mailbox.Store = (*Store)(nil)
