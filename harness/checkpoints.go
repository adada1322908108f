package harness

import (
	"fmt"

	"github.com/ouroagent/ouro/checkpoint"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
)

// checkpoints is the session's checkpoint store (package checkpoint).
func (s *Session) checkpoints() *checkpoint.Store {
	cp, _ := mechanism.Handle[*checkpoint.Store](s.parts)
	return cp
}

// beginCheckpoint starts the checkpoint of a prompt before it runs.
func (s *Session) beginCheckpoint(input []llm.Block, prompt string) {
	if len(input) == 0 {
		return
	}
	if prompt == "" {
		prompt = "(an image)"
	}
	if err := s.checkpoints().Begin(len(s.Conv.Messages), prompt); err != nil {
		fmt.Fprintf(s.warn, "ouro: the checkpoint of this prompt could not be recorded (%v); /rewind will not list it\n", err)
	}
}

// Checkpoints lists the session's prompts, oldest first, with the files Write and Edit
// changed during each. Changes made by Bash or outside ouro are not in it.
func (s *Session) Checkpoints() ([]checkpoint.Prompt, error) { return s.checkpoints().Prompts() }

// PlanRewind says what restoring the code to before prompt id would do, file by file.
func (s *Session) PlanRewind(id int) ([]checkpoint.Step, error) { return s.checkpoints().Plan(id) }

// RestoreCode carries out a plan; files with a conflict are overwritten only if force.
func (s *Session) RestoreCode(steps []checkpoint.Step, force bool) ([]checkpoint.File, error) {
	return s.checkpoints().Restore(steps, force)
}

// RewindConversation cuts the conversation back to before prompt id and records that in
// the transcript, so a resumed session continues from there. It returns the messages kept.
func (s *Session) RewindConversation(id int) (int, error) {
	kept, err := s.checkpoints().Rewind(id, s.Conv.Messages)
	if kept != nil {
		s.Conv.Messages = kept
	}
	return len(kept), err
}
