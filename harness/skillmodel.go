package harness

import (
	"context"
	"fmt"
	"io"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
)

// A skill's "model:" (Claude Code: the model to use while the skill is active) serves the
// rest of the turn in which the skill is invoked, by the model or as the user's /name;
// the next prompt is the session's model's again. It serves only the agent that invoked
// the skill (subagent.AgentID): a child's skill leaves its parent's model alone, and the
// other way round. Names resolve as agents' do
// (subagent.CheckModel, providerFor): an alias, "inherit", a full name; an unknown name
// is reported and the session's model serves.

// turnModel is the provider and model serving the current turn for a skill.
type turnModel struct {
	p     llm.Provider
	name  string
	skill string
}

// serve returns the session's provider with the turn's skill model put in front of it,
// and keeps what resolves skills' models.
func (l *skillLog) serve(m model, warn io.Writer) llm.Provider {
	l.models = providerFor(m, warn)
	return l.wrap(m.provider)
}

// wrap returns p with a skill's model put in front of it for the agents whose turn has
// one: a subagent's provider, so that a skill the subagent invokes serves it.
func (l *skillLog) wrap(p llm.Provider) llm.Provider {
	return &skillModels{Provider: p, log: l}
}

// useModel makes s's model serve the rest of the turn of the agent ctx belongs to, when
// it names one that resolves.
func (l *skillLog) useModel(ctx context.Context, s skill.Skill) {
	if s.Model == "" || l.models == nil {
		return
	}
	name := subagent.CheckModel(s.Model, func(format string, a ...any) {
		fmt.Fprintf(l.warn, "ouro: skill %s: %s\n", s.Name, fmt.Sprintf(format, a...))
	})
	if name == "" { // inherit, or unknown (reported)
		return
	}
	p, served := l.models("skill "+s.Name, name)
	who := subagent.AgentID(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	if p == nil { // the session's model, or one that cannot be reached (reported)
		delete(l.turn, who)
		return
	}
	if l.turn == nil {
		l.turn = map[string]turnModel{}
	}
	l.turn[who] = turnModel{p: p, name: served, skill: s.Name}
}

// endTurn gives the next turn back to the session's model (and a subagent still running
// in the background back to its own).
func (l *skillLog) endTurn() {
	l.mu.Lock()
	l.turn = nil
	l.mu.Unlock()
}

// current is the skill model serving the agent ctx belongs to, if any.
func (l *skillLog) current(ctx context.Context) turnModel {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.turn[subagent.AgentID(ctx)]
}

// skillModels is the session's provider, except during a turn whose skill names a model.
type skillModels struct {
	llm.Provider
	log *skillLog
}

func (s *skillModels) Complete(ctx context.Context, req *llm.Request, onDelta llm.StreamFunc) (*llm.Response, error) {
	t := s.log.current(ctx)
	if t.p == nil {
		return s.Provider.Complete(ctx, req, onDelta)
	}
	r := *req
	r.Model = t.name
	if max := llm.LookupModel(t.name).MaxOutput; max > 0 && r.MaxTokens > max {
		r.MaxTokens = max // sized for the session's model, which may allow more
	}
	return t.p.Complete(ctx, &r, onDelta)
}
