package subagent

import (
	"path/filepath"

	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

// JoinConfig is what a session gives its subagents: the Task tool's Config, less what
// Join finds itself (the definitions, the transcripts' folder).
type JoinConfig struct {
	Config
	// Dir is the project and Home the user's config folder, whose agents/ folders hold
	// the definitions (LoadDefinitions); Extra are more, after them (plugins', the SDK's).
	Dir, Home string
	Extra     []Definition
}

// Agents is the session's subagents: its Task tool and the definitions found (files and
// plugins; the built-ins apart).
type Agents struct {
	Task        *Tool
	Definitions []Definition
}

// Join offers the Agent tool (and Task, its older name): children run their own loop
// with the session's provider, a subset of its tools, and the seams of the config
// (PhaseDelegation; the Part's Handle is the *Agents). Each child's transcript is kept
// in the session's folder under subagents/; problems with definitions are warned about.
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	defs, warns := LoadDefinitions(jc.Dir, jc.Home)
	for _, w := range warns {
		env.Warn.Warnf("agent %s", w)
	}
	cfg := jc.Config
	cfg.Definitions = append(defs, jc.Extra...)
	cfg.TranscriptDir = filepath.Join(env.SessionDir, "subagents")
	task, alias := NewTool(cfg)
	// Claude Code 2.1 offers the tool as Agent; Task, its older name, is not sent (the
	// same schema twice cost every request ~500 tokens) but still answers a call by that
	// name, as a deferred tool loads itself when called.
	return mechanism.Part{Name: "subagents", Phase: mechanism.PhaseDelegation, Tools: []tool.Tool{alias}, Deferred: []tool.Tool{task},
		Handle: &Agents{Task: task, Definitions: cfg.Definitions}}, nil
}
