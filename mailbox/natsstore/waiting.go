package natsstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/ouroagent/ouro/internal/natsjs"
)

// Waiting counts the messages to an agent not yet acknowledged, without taking them
// (Pending would hold them from their recipient for the ack wait) and without making
// the team's stream or the agent's consumer (ouro team status). It is the consumer's
// count, which follows a send or an acknowledgement within moments.
func (s *Store) Waiting(ctx context.Context, team, agent string) (int, error) {
	st, err := s.conn.JS.Stream(ctx, s.stream(team))
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("team %s's mailboxes: %w", team, err)
	}
	c, err := st.Consumer(ctx, "to-"+natsjs.Escape(agent))
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		// Nobody read this mailbox yet: every message on its subject waits.
		subj := s.subject(team, agent)
		info, err := st.Info(ctx, jetstream.WithSubjectFilter(subj))
		if err != nil {
			return 0, fmt.Errorf("%s's mailbox in team %s: %w", agent, team, err)
		}
		return int(info.State.Subjects[subj]), nil
	}
	if err != nil {
		return 0, fmt.Errorf("%s's mailbox in team %s: %w", agent, team, err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("%s's mailbox in team %s: %w", agent, team, err)
	}
	return int(info.NumPending) + info.NumAckPending, nil
}
