package harness

import (
	"errors"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm/resolve"
)

// ModelChoices lists the models the session could switch to (the /model picker; see
// resolve.Choices). It is empty for a session whose provider was given by its caller.
func (s *Session) ModelChoices() []resolve.ModelChoice { return resolve.Choices(s.Model, s.env) }

// CheckModel says whether a provider of this session knows the model name: nil if so,
// else an error naming the close ones and how to use the name anyway (resolve.Check).
func (s *Session) CheckModel(name string) error { return resolve.Check(name, s.Model, s.env) }

// SwitchModel makes the session's next model requests use name, the conversation going
// on (the Agent SDK's setModel, between turns): a new provider for the name, the same
// tools, mechanisms and transcript. A session whose provider its caller gave cannot
// switch; a name CheckModel refuses is refused. It must not be called while a turn runs.
func (s *Session) SwitchModel(name string) error {
	if s.modelOpts.Provider != nil {
		return errors.New("this session's provider was given by its caller; its model cannot be switched")
	}
	if err := s.CheckModel(name); err != nil {
		return err
	}
	o := s.modelOpts
	o.Name = name
	m, err := connect(o, "", s.env, s.keys, s.warn)
	if err != nil {
		return err
	}
	if m.name == s.Model {
		return nil
	}
	tap := &hook.FailureTap{Provider: s.skills().Serve(m.provider, providerFor(m, s.warn))}
	cfg := s.Agent.Config()
	cfg.Provider, cfg.Model, cfg.MaxOutput = tap, m.name, s.modelOpts.MaxOutput
	a, err := agent.New(cfg)
	if err != nil {
		return err
	}
	s.Agent, s.tap, s.provider, s.Model = a, tap, m.provider, m.name
	s.search.set(m.provider, m.name)
	return nil
}
