package checkpoint

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
)

// envJournal is the transcript as a mechanism sees it: entries appended, syncs counted.
type envJournal struct {
	journal
	syncs int
}

func (j *envJournal) AppendEntry(typ string, data any) error { return j.record(typ, data) }
func (j *envJournal) Sync() error                            { j.syncs++; return nil }

// A joined store lists the prompts the resumed transcript held, stops offering a
// conversation rewind once an agent event says the conversation was summarised, and a
// rewind records itself and the shortened history, durably.
func TestJoinResumesObservesAndRewinds(t *testing.T) {
	sessions := t.TempDir()
	prompt, _ := json.Marshal(Prompt{ID: 1, Session: "s0", At: 0, Preview: "first"})
	j := &envJournal{}
	env := mechanism.Env{SessionDir: filepath.Join(sessions, "s1"), Journal: j,
		Resumed: []mechanism.Entry{{Type: EntryPrompt, Data: prompt}, {Type: "message", Data: json.RawMessage(`{}`)}}}
	p, err := Join(env, JoinConfig{Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := mechanism.Handle[*Store]([]mechanism.Part{p})
	if !ok {
		t.Fatal("the part's handle is not the *Store")
	}
	ps, err := s.Prompts()
	if err != nil || len(ps) != 1 || ps[0].Preview != "first" {
		t.Fatalf("resumed prompts = %+v, %v; want the one the transcript held", ps, err)
	}
	msgs := []llm.Message{{Role: llm.RoleUser}, {Role: llm.RoleAssistant}, {Role: llm.RoleUser}}
	if err := s.Begin(2, "second"); err != nil {
		t.Fatal(err)
	}
	kept, err := s.Rewind(2, msgs)
	if err != nil || len(kept) != 2 {
		t.Fatalf("Rewind = %d messages, %v; want 2", len(kept), err)
	}
	var types []string
	for _, e := range j.entries {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, " "); got != "checkpoint rewind replace" || j.syncs != 1 {
		t.Errorf("recorded %q with %d syncs; want the prompt, the rewind and the history, synced once", got, j.syncs)
	}
	if _, err := s.Rewind(1, msgs); err != nil {
		t.Fatalf("prompt 1 before any summary: %v", err)
	}
	for _, o := range p.Observers {
		o(agent.Event{Type: agent.EventReplace})
	}
	if err := s.Begin(0, "third"); err != nil {
		t.Fatal(err)
	}
	for _, o := range p.Observers {
		o(agent.Event{Type: agent.EventReplace})
	}
	if kept, err := s.Rewind(3, msgs); err == nil || kept != nil {
		t.Errorf("a rewind past a summary went ahead (%d kept)", len(kept))
	}
}
