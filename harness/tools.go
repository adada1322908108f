package harness

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/checkpoint"
	"github.com/ouroagent/ouro/internal/outputstyle"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// The tools a session offers: the built-ins, the mechanisms' parts and what the tools
// list and deny rules leave of them.

// join asks each extension for its Part.
func join(ext []mechanism.Joiner, env mechanism.Env) ([]mechanism.Part, error) {
	var parts []mechanism.Part
	for _, j := range ext {
		p, err := j.Join(env)
		if err != nil {
			return nil, fmt.Errorf("%T could not join the session: %w", j, err)
		}
		p.Phase = mechanism.PhaseExtension // after the gate and the hooks, whatever it says
		parts = append(parts, p)
	}
	return parts, nil
}

// register makes the registry of the parts' tools, with the session's tool options.
func register(o tool.Options, parts ...mechanism.Part) (*tool.Registry, error) {
	reg := tool.NewRegistry()
	for _, p := range parts {
		if err := addTools(reg, p); err != nil {
			return nil, err
		}
	}
	reg.SetOptions(o)
	return reg, nil
}

func addTools(reg *tool.Registry, p mechanism.Part) error {
	for _, t := range p.Tools {
		if err := reg.Add(t); err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	for _, t := range p.Deferred {
		if err := reg.AddDeferred(t); err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	return nil
}

// systemPrompt is the given or default prompt (with the output style, which only the
// default prompt takes, as in Claude Code), what commits and pull requests carry, each
// part's section, then the appended text.
func systemPrompt(p Prompt, cwd string, style outputstyle.Style, attr settings.Attribution, parts []mechanism.Part) string {
	system := p.System
	add := func(section string) {
		if section = strings.Trim(section, "\n"); section != "" {
			system = strings.TrimRight(system, "\n") + "\n\n" + section + "\n"
		}
	}
	if system == "" {
		system = basePrompt(cwd, style.Name == "" || style.KeepCoding)
		add(stylePrompt(style))
	}
	add(attributionPrompt(attr))
	for _, part := range parts {
		add(part.Prompt)
	}
	add(p.Append)
	return system
}

// builtinTools are the built-in tools with Claude Code's names, sharing one file-state
// tracker; large outputs spill to the session's tool-results folder, which the workspace
// then reaches.
func builtinTools(cwd string, ws *workspace.Workspace, tr *transcript, g *guard, ui UI, bg *background.Manager, cp *checkpoint.Store, search tools.WebSearchConfig, limits tools.BashLimits) (mechanism.Part, *tools.Bash, error) {
	spill := tr.spillDir()
	if err := os.MkdirAll(spill, 0o700); err != nil {
		return mechanism.Part{}, nil, fmt.Errorf("tool-results folder: %w", err)
	}
	if err := ws.AddRoot(spill); err != nil {
		return mechanism.Part{}, nil, err
	}
	files := tools.NewFileState()
	files.SetRecorder(cp)
	files.SetEditor(ui.Editor)
	// Bash keeps up to ten budgets of output so the registry can spill it whole; only
	// beyond that does Bash itself cut the middle (and say so).
	bash := tools.NewBash(limits.Apply(tools.BashConfig{Dir: cwd, MaxOutput: 10 * tool.DefaultOutputBudget,
		Env: g.env, Sandbox: g.sandbox, Unsandboxed: g.excluded,
		AllowUnsandboxed: g.unsandboxedOK, Within: ws.Contains, Background: bg, EnvDir: g.envDir}))
	grep := tools.NewGrep(ws)
	grep.SetReadFilter(g.policy.ReadDenied)
	return mechanism.Part{Name: "tools", Phase: mechanism.PhaseTools, Tools: []tool.Tool{
		bash,
		tools.NewGlob(ws), grep, tools.NewLS(ws),
		tools.NewRead(ws, files), tools.NewEdit(ws, files), tools.NewWrite(ws, files),
		tools.NewWebFetch(tools.WebFetchConfig{}), tools.NewWebSearch(search),
		tools.NewAskUserQuestion(ui.Asker),
	},
		// Rarely used: offered on demand, so the first request stays small.
		Deferred: []tool.Tool{tools.NewNotebookEdit(ws, files)},
	}, bash, nil
}

// offer completes the registry with the lead's own tools (PhaseDelegation: the Task
// tool, SendMessage, Workflow, which subagents are not given) and leaves what the model
// is offered: not the tools a deny rule hides, and only those the tools list names (when
// it names any). The parts' tools come first, then their deferred ones.
func offer(reg *tool.Registry, lead []mechanism.Part, g *guard, only []string) (*tool.Registry, error) {
	for _, p := range lead {
		if err := addTools(reg, mechanism.Part{Name: p.Name, Tools: p.Tools}); err != nil {
			return nil, err
		}
	}
	for _, p := range lead {
		if err := addTools(reg, mechanism.Part{Name: p.Name, Deferred: p.Deferred}); err != nil {
			return nil, err
		}
	}
	g.hideDenied(reg)
	if err := restrictTools(reg, only, g.policy.Hidden); err != nil {
		return nil, err
	}
	if _, has := reg.Get(tool.ToolSearchName); !has && len(reg.DeferredNames()) > 0 {
		if err := reg.Add(tool.NewSearch(reg)); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// offeredBy filters names down to the tools list (all of them when it is empty).
func offeredBy(only []string) func(names ...string) []string {
	return func(names ...string) []string {
		if len(only) == 0 {
			return names
		}
		var out []string
		for _, n := range names {
			if slices.Contains(only, n) {
				out = append(out, n)
			}
		}
		return out
	}
}

// restrictTools leaves only the tools only names (when it names any); a name no tool has
// is an error unless a deny rule already hid that tool.
func restrictTools(reg *tool.Registry, only []string, hidden func(string) bool) error {
	if len(only) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, n := range reg.Names() {
		have[n] = true
	}
	want := map[string]bool{}
	for _, n := range only {
		if !have[n] && !hidden(n) {
			names := reg.Names()
			sort.Strings(names)
			return fmt.Errorf("--tools: there is no tool %q; the tools are %s", n, strings.Join(names, ", "))
		}
		want[n] = true
	}
	for _, n := range reg.Names() {
		if !want[n] {
			reg.Remove(n)
		}
	}
	return nil
}

// SmallModelTools are the tools a model with a small context window (smallWindow: a
// local server's) is offered unless the caller names its own or asks for all: reading,
// changing and running, in about half the tokens of the whole list. Tried on a 1.5B
// model (docs/local-model.md): with every tool it answered with code and called none;
// with these it called tools.
var SmallModelTools = []string{"Read", "Edit", "Write", "Bash", "Glob", "Grep"}

// smallWindow says a context window (tokens; 0: unknown) is a small local model's: at
// most 32k, where the whole tool list would be a seventh of it in every request.
func smallWindow(n int) bool { return n > 0 && n <= 32768 }
