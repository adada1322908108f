package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// TurnRules are the permission rules that last the current turn: a skill's
// allowed-tools join them.
type TurnRules interface {
	AddTurnRule(ctx context.Context, rule string) error
}

// HookAdder adds a skill's hooks to the session's, from its first invocation on.
type HookAdder interface {
	Add(hooks map[string][]settings.HookMatcher) ([]string, error)
}

// Expander runs the !`command` lines of a skill's text (through the session's gate and
// sandbox) and puts their output in their place.
type Expander interface {
	Expand(ctx context.Context, skill, text string) string
}

// JoinConfig is what a session gives its skills.
type JoinConfig struct {
	// Dir is the working directory, Home the user's configuration folder; Extra are
	// the plugins' skills, after the project's and the user's.
	Dir, Home string
	Extra     []Skill
	// Rules take a skill's allowed-tools once Allow says its file may grant them (nil:
	// every file may); Hooks take its hooks.
	Rules TurnRules
	Allow func(path, what string) bool
	Hooks HookAdder
	// Offered says the Skill tool is offered (the catalog then joins the prompt).
	Offered bool
	// Shell runs the !`command` lines of the skills the session's own Skill tool and
	// the user load (nil leaves them as written).
	Shell *Shell
}

// Join discovers the skills; the Skill tool and the catalog in the prompt are there when
// there are any (the catalog only when Skill is offered). Skills loaded before a resume
// are known again from the transcript, and restored after a summary. The Part
// (PhaseState) has the *Log as its Handle; Catalog is its catalog.
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	cat, warns := Discover(Options{Dir: jc.Dir, Home: jc.Home})
	for _, w := range warns {
		env.Warn.Warnf("skill %s", w)
	}
	if len(jc.Extra) > 0 {
		cat = NewCatalog(append(cat.Skills(), jc.Extra...)...)
	}
	var list []invokedSkill
	for _, e := range env.Entries(EntryInvoked) {
		var k invokedSkill
		if json.Unmarshal(e.Data, &k) == nil && k.Name != "" {
			list = keep(list, k)
		}
	}
	l := &Log{env: env, rules: jc.Rules, allow: jc.Allow, list: list, hooks: jc.Hooks, hooked: map[string]bool{}, catalog: cat}
	if jc.Shell != nil {
		l.shell = jc.Shell
	}
	p := mechanism.Part{Name: "skills", Phase: mechanism.PhaseState, Restore: l.blocks, Handle: l}
	if len(cat.ForModel()) > 0 { // skills only the user may invoke need no tool
		l.tool = true
		p.Tools = []tool.Tool{NewTool(cat, env.Workspace, l.invoked)}
		if jc.Offered {
			p.Prompt = cat.Prompt(0)
		}
	}
	return p, nil
}

// Catalog is the skills found for this project.
func (l *Log) Catalog() *Catalog { return l.catalog }

// HasTool says the Skill tool is offered (some skill is for the model).
func (l *Log) HasTool() bool { return l.tool }

// Serve returns p with the turn's skill model put in front of it, and keeps models,
// what resolves skills' models (the session's providers).
func (l *Log) Serve(p llm.Provider, models func(who, model string) (llm.Provider, string)) llm.Provider {
	l.models = models
	return l.Wrap(p)
}

// Invoked runs what loading a skill does (allowed-tools, hooks, model, its !`command`
// lines) and records it; the text is what the model reads.
func (l *Log) Invoked(ctx context.Context, inv Invocation) string { return l.invoked(ctx, inv) }

// Log keeps the skills loaded in this session, oldest first.
type Log struct {
	env   mechanism.Env
	rules TurnRules
	// allow says whether a skill's file may grant its allowed-tools (see grants).
	allow func(path, what string) bool
	// hooks receives a skill's hooks at its first use; hooked lists the skill files
	// whose hooks were added.
	hooks HookAdder
	// models serves a skill's model: (nil, "") when the session's serves.
	models func(who, model string) (llm.Provider, string)
	// shell runs skills' !`command`s; nil leaves them as written.
	shell  Expander
	mu     sync.Mutex
	turn   map[string]turnModel // the model of this turn's skill, per agent (subagent.AgentID), if it names one
	list   []invokedSkill
	hooked map[string]bool

	catalog *Catalog
	tool    bool // the Skill tool is offered
}

// invoked grants the rules a skill's allowed-tools asks for, for the rest of the turn
// (Run clears them when it returns), runs its !`command`s (the Expander) and keeps the
// skill's text so a summary of the conversation does not lose it (recorded in the
// transcript for --resume too). It returns the text the model receives.
func (l *Log) invoked(ctx context.Context, inv Invocation) string {
	return l.InvokedIn(l.shell)(ctx, inv)
}

// InvokedIn is invoked with the skill's !`command`s run by sh: an isolated child's own
// (its worktree, sandbox and gates).
func (l *Log) InvokedIn(sh Expander) func(ctx context.Context, inv Invocation) string {
	return func(ctx context.Context, inv Invocation) string { return l.invoke(ctx, inv, sh) }
}

func (l *Log) invoke(ctx context.Context, inv Invocation, sh Expander) string {
	rules := inv.Skill.AllowedTools
	if len(rules) > 0 && l.allow != nil && !l.allow(inv.Skill.Path, "allowed-tools "+strings.Join(rules, ", ")) {
		rules = nil
	}
	for _, r := range rules {
		if err := l.rules.AddTurnRule(ctx, r); err != nil {
			l.env.Warn.Warnf("skill %s: allowed-tools %q: %v", inv.Skill.Name, r, err)
		}
	}
	l.addHooks(inv.Skill)
	l.useModel(ctx, inv.Skill)
	if sh != nil {
		inv.Text = sh.Expand(ctx, inv.Skill.Name, inv.Text)
	}
	k := invokedSkill{Name: inv.Skill.Name, Text: inv.Text}
	l.mu.Lock()
	l.list = keep(l.list, k)
	l.mu.Unlock()
	if err := l.env.Journal.AppendEntry(EntryInvoked, k); err != nil {
		l.env.Warn.Warnf("recording the skill: %v", err)
	}
	return inv.Text
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
func (l *Log) blocks() []llm.Block {
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
const EntryInvoked = "skill"

// addHooks registers the hooks of a skill's frontmatter at its first use, for the rest of
// the session (as Claude Code does), when its file may grant them.
func (l *Log) addHooks(s Skill) {
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
	warns, err := l.hooks.Add(hook.Sourced(s.Hooks, s.Path))
	for _, w := range warns {
		l.env.Warn.Warnf("skill %s: hooks: %s", s.Name, w)
	}
	if err != nil {
		l.env.Warn.Warnf("skill %s: its hooks are not used: %v", s.Name, err)
	}
}

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

// Wrap returns p with a skill's model put in front of it for the agents whose turn has
// one: a subagent's provider, so that a skill the subagent invokes serves it.
func (l *Log) Wrap(p llm.Provider) llm.Provider {
	return &skillModels{Provider: p, log: l}
}

// useModel makes s's model serve the rest of the turn of the agent ctx belongs to, when
// it names one that resolves.
func (l *Log) useModel(ctx context.Context, s Skill) {
	if s.Model == "" || l.models == nil {
		return
	}
	name := subagent.CheckModel(s.Model, func(format string, a ...any) {
		l.env.Warn.Warnf("skill %s: %s", s.Name, fmt.Sprintf(format, a...))
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

// EndTurn gives the next turn back to the session's model (and a subagent still running
// in the background back to its own).
func (l *Log) EndTurn() {
	l.mu.Lock()
	l.turn = nil
	l.mu.Unlock()
}

// current is the skill model serving the agent ctx belongs to, if any.
func (l *Log) current(ctx context.Context) turnModel {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.turn[subagent.AgentID(ctx)]
}

// skillModels is the session's provider, except during a turn whose skill names a model.
type skillModels struct {
	llm.Provider
	log *Log
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

// Preload gives a child of an agent whose definition names skills (skills:) each one's
// whole text before its prompt, as Claude Code does: loaded as the Skill tool loads
// them, arguments empty, in the workspace ws. A name no skill has is reported and left
// out.
func (l *Log) Preload(ws *workspace.Workspace) func(ctx context.Context, d subagent.Definition) []llm.Block {
	return func(ctx context.Context, d subagent.Definition) []llm.Block {
		var out []llm.Block
		for _, name := range d.Skills {
			inv, err := l.catalog.Invoke(ws, name, "")
			if err != nil {
				l.env.Warn.Warnf("agent %s: skills: %v; it starts without it", d.Name, err)
				continue
			}
			text := inv.Text
			if l.shell != nil {
				text = l.shell.Expand(ctx, inv.Skill.Name, inv.Text)
			}
			out = append(out, llm.TextBlock(fmt.Sprintf("<skill name=%q>\n(preloaded for this agent by its definition)\n%s\n</skill>", inv.Skill.Name, text)))
		}
		return out
	}
}
