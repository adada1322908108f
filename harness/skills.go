package harness

import (
	"context"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// skillsConfig is what the skills are given: the guard's turn rules and hooks, the
// grants' say on what a file written by a session may grant, the plugins' skills.
func skillsConfig(d dirs, g *guard, allow func(path, what string) bool, offered func(...string) []string, extra []skill.Skill, sh *skill.Shell) skill.JoinConfig {
	return skill.JoinConfig{Dir: d.cwd, Home: d.config, Extra: extra, Rules: g.policy, Allow: allow, Hooks: g.hooks,
		Offered: len(offered(skill.ToolName)) > 0, Shell: sh}
}

// skillShell runs skills' !`command`s under gates (none: the session's gate) in the
// workspace and sandbox of bash (skill.Shell).
func skillShell(g *guard, ws *workspace.Workspace, bash *tools.Bash, gates []agent.Gate) *skill.Shell {
	if len(gates) == 0 {
		gates = []agent.Gate{g.gate}
	}
	return &skill.Shell{Gates: gates, Runs: g.audit, Workspace: ws, Session: bash, Env: g.env, EnvDir: g.envDir}
}

// skills is the session's skill log.
func (s *Session) skills() *skill.Log {
	l, _ := mechanism.Handle[*skill.Log](s.parts)
	return l
}

// InvokeSkill loads a skill for the user (the REPL's /<skill> args): what the Skill tool
// does for the model. The text returned is the prompt to send.
// Its !`command`s run under ctx.
func (s *Session) InvokeSkill(ctx context.Context, name, args string) (string, error) {
	inv, err := s.Skills.InvokeForUser(s.Workspace, name, args)
	if err != nil {
		return "", err
	}
	return s.skills().Invoked(ctx, inv), nil
}

// skillToolFor returns the Skill tool for a child isolated in a worktree: the same
// skills, whose !`command`s run in the child's worktree and sandbox (bash) under its
// gates, not in the main checkout under the session's. nil when the session has no Skill
// tool.
func skillToolFor(l *skill.Log, g *guard) func(ws *workspace.Workspace, bash *tools.Bash, gates []agent.Gate) tool.Tool {
	return func(ws *workspace.Workspace, bash *tools.Bash, gates []agent.Gate) tool.Tool {
		if !l.HasTool() {
			return nil
		}
		return skill.NewTool(l.Catalog(), ws, l.InvokedIn(skillShell(g, ws, bash, gates)))
	}
}
