package harness

import (
	"fmt"
	"path/filepath"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/checkpoint"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/session"
)

// checkpoints is the session's checkpoint store, listed from the transcript's history and
// kept in the session's folder.
func (t *transcript) checkpoints() *checkpoint.Store {
	if t.cp == nil {
		t.cp = checkpoint.Open(filepath.Dir(t.w.Dir()), t.w.ID(), t.w.AppendEntry, t.history)
		t.history = nil
	}
	return t.cp
}

// observeCompaction tells the checkpoints when the conversation is summarised, after
// which earlier prompts can only have their code rewound.
func (t *transcript) observeCompaction(e agent.Event) {
	if e.Type == agent.EventReplace {
		t.checkpoints().Compacted()
	}
}

// beginCheckpoint starts the checkpoint of a prompt before it runs.
func (s *Session) beginCheckpoint(input []llm.Block, prompt string) {
	if len(input) == 0 {
		return
	}
	if prompt == "" {
		prompt = "(an image)"
	}
	if err := s.cp.Begin(len(s.Conv.Messages), prompt); err != nil {
		fmt.Fprintf(s.warn, "ouro: the checkpoint of this prompt could not be recorded (%v); /rewind will not list it\n", err)
	}
}

// Checkpoints lists the session's prompts, oldest first, with the files Write and Edit
// changed during each. Changes made by Bash or outside ouro are not in it.
func (s *Session) Checkpoints() ([]checkpoint.Prompt, error) { return s.cp.Prompts() }

// PlanRewind says what restoring the code to before prompt id would do, file by file.
func (s *Session) PlanRewind(id int) ([]checkpoint.Step, error) { return s.cp.Plan(id) }

// RestoreCode carries out a plan; files with a conflict are overwritten only if force.
func (s *Session) RestoreCode(steps []checkpoint.Step, force bool) ([]checkpoint.File, error) {
	return s.cp.Restore(steps, force)
}

// RewindConversation cuts the conversation back to before prompt id and records that in
// the transcript, so a resumed session continues from there. It returns the messages kept.
func (s *Session) RewindConversation(id int) (int, error) {
	at, err := s.cp.At(id)
	if err != nil {
		return 0, err
	}
	if at > len(s.Conv.Messages) {
		return 0, fmt.Errorf("the conversation has %d messages, fewer than the %d before that prompt", len(s.Conv.Messages), at)
	}
	msgs := append(make([]llm.Message, 0, at), s.Conv.Messages[:at]...)
	if err := s.cp.ConversationRewound(id); err != nil {
		return 0, fmt.Errorf("record the rewind in the transcript: %w", err)
	}
	if err := s.writer.AppendEntry(session.TypeReplace, map[string]any{"messages": msgs}); err != nil {
		return 0, fmt.Errorf("record the rewound conversation in the transcript: %w", err)
	}
	s.Conv.Messages = msgs
	return at, s.writer.Sync()
}
