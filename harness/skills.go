package harness

import (
	"fmt"
	"slices"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/skill"
)

// skillInvoked grants the rules a skill's allowed-tools asks for, for the rest of the
// turn (Run clears them when it returns), and keeps the skill's text so a summary of the
// conversation does not lose it (recorded in the transcript for --resume too).
func (s *Session) skillInvoked(inv skill.Invocation) {
	for _, r := range inv.Skill.AllowedTools {
		if err := s.guard.policy.AddTurnRule(r); err != nil {
			fmt.Fprintf(s.opts.Warn, "ouro: skill %s: allowed-tools %q: %v\n", inv.Skill.Name, r, err)
		}
	}
	s.keepSkill(inv.Skill.Name, inv.Text)
	if err := s.writer.AppendEntry(entrySkill, invokedSkill{Name: inv.Skill.Name, Text: inv.Text}); err != nil {
		fmt.Fprintf(s.opts.Warn, "ouro: recording the skill: %v\n", err)
	}
}

// InvokeSkill loads a skill for the user (the REPL's /<skill> args): what the Skill tool
// does for the model. The text returned is the prompt to send.
func (s *Session) InvokeSkill(name, args string) (string, error) {
	inv, err := s.Skills.Invoke(s.Workspace, name, args)
	if err != nil {
		return "", err
	}
	s.skillInvoked(inv)
	return inv.Text, nil
}

// invokedSkill is a skill loaded in this session, as the transcript records it.
type invokedSkill struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// keepSkill remembers a skill's text; a skill loaded again replaces its earlier text.
func (s *Session) keepSkill(name, text string) {
	s.skillsMu.Lock()
	defer s.skillsMu.Unlock()
	s.skills = slices.DeleteFunc(s.skills, func(k invokedSkill) bool { return k.Name == name })
	s.skills = append(s.skills, invokedSkill{Name: name, Text: text})
}

// invokedSkills are the texts to put back after a summary: the most recently loaded
// first, each at most 8,000 characters and 20,000 in all.
func (s *Session) invokedSkills() []llm.Block {
	s.skillsMu.Lock()
	defer s.skillsMu.Unlock()
	var out []llm.Block
	total := 0
	for i := len(s.skills) - 1; i >= 0; i-- {
		k := s.skills[i]
		text := textcut.Bytes(k.Text, 8000, "\n… (cut; call the Skill tool again for the whole text)")
		if total+len(text) > 20000 {
			break
		}
		total += len(text)
		out = append(out, llm.TextBlock(fmt.Sprintf("<skill name=%q>\n(loaded earlier in this session; still in force)\n%s\n</skill>", k.Name, text)))
	}
	return out
}

// entrySkill is the transcript entry recording a loaded skill.
const entrySkill = "skill"
