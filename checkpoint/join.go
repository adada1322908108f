package checkpoint

import (
	"fmt"
	"path/filepath"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
)

// JoinConfig is what a session gives its checkpoints.
type JoinConfig struct {
	// Session is the session's ID: its folder (mechanism.Env.SessionDir) holds the
	// checkpoints, and its prompts' manifests are named for it.
	Session string
}

// Join opens the session's checkpoints in its folder, listed from what the resumed
// transcript held, and watches for the conversation being summarised, after which
// earlier prompts can only have their code rewound (PhaseState; the Part's Handle is the
// *Store). A restore touches only paths of the session's workspace.
func Join(env mechanism.Env, cfg JoinConfig) (mechanism.Part, error) {
	var history []Entry
	for _, e := range env.Entries(EntryPrompt, EntryRewind, entryReplace) {
		history = append(history, Entry{Type: e.Type, Data: e.Data})
	}
	s := Open(filepath.Dir(env.SessionDir), cfg.Session, env.Journal.AppendEntry, history)
	if env.Workspace != nil {
		s.Within = env.Workspace.Contains
	}
	s.sync = env.Journal.Sync
	observe := func(e agent.Event) {
		if e.Type == agent.EventReplace {
			s.Compacted()
		}
	}
	return mechanism.Part{Name: "checkpoints", Phase: mechanism.PhaseState, Observers: []agent.Observer{observe}, Handle: s}, nil
}

// Rewind cuts the conversation msgs back to before prompt id and records that in the
// transcript (the rewind, then the shortened history), so a resumed session continues
// from there. It returns the messages kept.
func (s *Store) Rewind(id int, msgs []llm.Message) ([]llm.Message, error) {
	at, err := s.At(id)
	if err != nil {
		return nil, err
	}
	if at > len(msgs) {
		return nil, fmt.Errorf("the conversation has %d messages, fewer than the %d before that prompt", len(msgs), at)
	}
	kept := append(make([]llm.Message, 0, at), msgs[:at]...)
	if err := s.ConversationRewound(id); err != nil {
		return nil, fmt.Errorf("record the rewind in the transcript: %w", err)
	}
	if err := s.record(entryReplace, map[string]any{"messages": kept}); err != nil {
		return nil, fmt.Errorf("record the rewound conversation in the transcript: %w", err)
	}
	if s.sync != nil {
		return kept, s.sync()
	}
	return kept, nil
}
