package harness

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// skills are the skills found for this project, the Skill tool that loads them and the
// log of those loaded in this session.
type skills struct {
	catalog *skill.Catalog
	log     *skillLog
	part    mechanism.Part
	ws      *workspace.Workspace
}

// openSkills discovers the skills; the Skill tool and the catalog in the prompt are there
// when there are any (the catalog only when Skill is offered). Skills loaded before a
// resume are known again from the transcript.
func openSkills(d dirs, ws *workspace.Workspace, tr *transcript, policy *permission.Policy, allow func(path, what string) bool, offered func(...string) []string, warn io.Writer, extra []skill.Skill, hooks *hook.Runner) skills {
	cat, warns := skill.Discover(skill.Options{Dir: d.cwd, Home: d.config})
	for _, w := range warns {
		fmt.Fprintf(warn, "ouro: skill %s\n", w)
	}
	if len(extra) > 0 { // plugins' skills, after the project's and the user's
		cat = skill.NewCatalog(append(cat.Skills(), extra...)...)
	}
	log := &skillLog{w: tr.w, policy: policy, allow: allow, warn: warn, list: tr.skills, hooks: hooks, hooked: map[string]bool{}}
	sk := skills{catalog: cat, log: log, part: mechanism.Part{Name: "skills", Phase: mechanism.PhaseState, Restore: log.blocks}, ws: ws}
	if len(cat.ForModel()) > 0 { // skills only the user may invoke need no tool
		sk.part.Tools = []tool.Tool{skill.NewTool(cat, ws, log.invoked)}
		if len(offered("Skill")) > 0 {
			sk.part.Prompt = cat.Prompt(0)
		}
	}
	return sk
}

// skillLog keeps the skills loaded in this session, oldest first.
type skillLog struct {
	w      *session.Writer
	policy *permission.Policy
	// allow says whether a skill's file may grant its allowed-tools (see grants).
	allow func(path, what string) bool
	warn  io.Writer
	// hooks receives a skill's hooks at its first use; hooked lists the skill files
	// whose hooks were added.
	hooks *hook.Runner
	// models serves a skill's model: (nil, "") when the session's serves (skillmodel.go).
	models func(who, model string) (llm.Provider, string)
	// shell runs skills' !`command`s; nil leaves them as written.
	shell  *skillShell
	mu     sync.Mutex
	turn   map[string]turnModel // the model of this turn's skill, per agent (subagent.AgentID), if it names one
	list   []invokedSkill
	hooked map[string]bool
}

// invoked grants the rules a skill's allowed-tools asks for, for the rest of the turn
// (Run clears them when it returns), runs its !`command`s (skillshell.go) and keeps the
// skill's text so a summary of the conversation does not lose it (recorded in the
// transcript for --resume too). It returns the text the model receives.
func (l *skillLog) invoked(ctx context.Context, inv skill.Invocation) string {
	return l.invokedIn(l.shell)(ctx, inv)
}

// invokedIn is invoked with the skill's !`command`s run by sh: an isolated child's own
// (its worktree, sandbox and gates; see toolFor).
func (l *skillLog) invokedIn(sh *skillShell) func(ctx context.Context, inv skill.Invocation) string {
	return func(ctx context.Context, inv skill.Invocation) string { return l.invoke(ctx, inv, sh) }
}

func (l *skillLog) invoke(ctx context.Context, inv skill.Invocation, sh *skillShell) string {
	rules := inv.Skill.AllowedTools
	if len(rules) > 0 && l.allow != nil && !l.allow(inv.Skill.Path, "allowed-tools "+strings.Join(rules, ", ")) {
		rules = nil
	}
	for _, r := range rules {
		if err := l.policy.AddTurnRule(ctx, r); err != nil {
			fmt.Fprintf(l.warn, "ouro: skill %s: allowed-tools %q: %v\n", inv.Skill.Name, r, err)
		}
	}
	l.addHooks(inv.Skill)
	l.useModel(ctx, inv.Skill)
	inv.Text = sh.expand(ctx, inv.Skill.Name, inv.Text)
	k := invokedSkill{Name: inv.Skill.Name, Text: inv.Text}
	l.mu.Lock()
	l.list = keep(l.list, k)
	l.mu.Unlock()
	if err := l.w.AppendEntry(entrySkill, k); err != nil {
		fmt.Fprintf(l.warn, "ouro: recording the skill: %v\n", err)
	}
	return inv.Text
}

// InvokeSkill loads a skill for the user (the REPL's /<skill> args): what the Skill tool
// does for the model. The text returned is the prompt to send.
// Its !`command`s run under ctx.
func (s *Session) InvokeSkill(ctx context.Context, name, args string) (string, error) {
	inv, err := s.Skills.InvokeForUser(s.Workspace, name, args)
	if err != nil {
		return "", err
	}
	return s.skills.invoked(ctx, inv), nil
}

// invokedSkill is a skill loaded in this session, as the transcript records it.
type invokedSkill struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// keep adds a skill's text to list; a skill loaded again replaces its earlier text.
func keep(list []invokedSkill, k invokedSkill) []invokedSkill {
	list = slices.DeleteFunc(list, func(o invokedSkill) bool { return o.Name == k.Name })
	return append(list, k)
}

// blocks are the texts to put back after a summary: the most recently loaded first, each
// at most 8,000 characters and 20,000 in all.
func (l *skillLog) blocks() []llm.Block {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []llm.Block
	total := 0
	for i := len(l.list) - 1; i >= 0; i-- {
		k := l.list[i]
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

// addHooks registers the hooks of a skill's frontmatter at its first use, for the rest of
// the session (as Claude Code does), when its file may grant them.
func (l *skillLog) addHooks(s skill.Skill) {
	if len(s.Hooks) == 0 || l.hooks == nil {
		return
	}
	l.mu.Lock()
	done := l.hooked[s.Path]
	l.hooked[s.Path] = true
	l.mu.Unlock()
	if done || (l.allow != nil && !l.allow(s.Path, "hooks")) {
		return
	}
	warns, err := l.hooks.Add(sourced(s.Hooks, s.Path))
	for _, w := range warns {
		fmt.Fprintf(l.warn, "ouro: skill %s: hooks: %s\n", s.Name, w)
	}
	if err != nil {
		fmt.Fprintf(l.warn, "ouro: skill %s: its hooks are not used: %v\n", s.Name, err)
	}
}

// preload gives a child of an agent whose definition names skills (skills:) each one's
// whole text before its prompt, as Claude Code does: loaded as the Skill tool loads
// them, arguments empty. A name no skill has is reported and left out.
func (sk skills) preload(warn io.Writer) func(ctx context.Context, d subagent.Definition) []llm.Block {
	return func(ctx context.Context, d subagent.Definition) []llm.Block {
		var out []llm.Block
		for _, name := range d.Skills {
			inv, err := sk.catalog.Invoke(sk.ws, name, "")
			if err != nil {
				fmt.Fprintf(warn, "ouro: agent %s: skills: %v; it starts without it\n", d.Name, err)
				continue
			}
			text := sk.log.shell.expand(ctx, inv.Skill.Name, inv.Text)
			out = append(out, llm.TextBlock(fmt.Sprintf("<skill name=%q>\n(preloaded for this agent by its definition)\n%s\n</skill>", inv.Skill.Name, text)))
		}
		return out
	}
}

// toolFor returns the Skill tool for a child isolated in a worktree: the same skills,
// whose !`command`s run in the child's worktree and sandbox (bash) under its gates, not
// in the main checkout under the session's. nil when the session has no Skill tool.
func (sk skills) toolFor(g *guard) func(ws *workspace.Workspace, bash *tools.Bash, gates []agent.Gate) tool.Tool {
	return func(ws *workspace.Workspace, bash *tools.Bash, gates []agent.Gate) tool.Tool {
		if len(sk.part.Tools) == 0 {
			return nil
		}
		return skill.NewTool(sk.catalog, ws, sk.log.invokedIn(&skillShell{g: g, ws: ws, session: bash, gates: gates}))
	}
}
