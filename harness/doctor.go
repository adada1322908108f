package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/doctor"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm/resolve"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/trust"
	"github.com/ouroagent/ouro/workspace"
)

// Doctor loads every configuration source as Open would for opts, through the same
// functions, and reports each file: loaded, skipped and why, with every warning (ouro
// doctor). Nothing runs: no hook, no model call, no transcript. A new mechanism joins
// by adding its doctor.Source to the list below.
func Doctor(opts Options) doctor.Report {
	d, err := locate(opts.Dirs)
	if err != nil {
		return doctor.Report{Sections: []doctor.Section{{Name: "session", Fatal: err.Error()}}}
	}
	c := &checkup{d: d, opts: opts, set: &settings.Settings{}}
	return doctor.Run(
		doctor.Func{Title: "settings", F: c.settings},
		doctor.Func{Title: "model", F: c.model},
		doctor.Func{Title: "permissions", F: c.permissions},
		doctor.Func{Title: "sandbox", F: c.sandbox},
		doctor.Func{Title: "hooks", F: c.hooks},
		doctor.Func{Title: "agents", F: c.agents},
		doctor.Func{Title: "skills", F: c.skills},
		doctor.Func{Title: "plugins", F: c.plugins},
		doctor.Func{Title: "instructions and rules", F: c.instructions},
		doctor.Func{Title: "memory", F: c.memory},
		doctor.Func{Title: "trust", F: c.trust},
		doctor.Func{Title: "store", F: c.store},
	)
}

// checkup carries what the earlier sections loaded to the later ones, as Open does.
type checkup struct {
	d      dirs
	opts   Options
	set    *settings.Settings
	policy *permission.Policy
	ws     *workspace.Workspace
	env    func(string) string // the connection variables, settings' env included
	m      model
	noSet  string // why the settings could not be loaded
}

// trust says whether an interactive start here would first ask if the folder is trusted.
func (c *checkup) trust(warn io.Writer) doctor.Section {
	ok, by, err := trust.Trusted(c.d.config, c.d.cwd)
	if err != nil {
		fmt.Fprintf(warn, "ouro: %v\n", err)
	}
	if ok {
		return doctor.Section{Files: []doctor.File{{Path: c.d.cwd, Status: doctor.Loaded, Detail: "trusted: " + by}}}
	}
	return doctor.Section{Warnings: []string{c.d.cwd + " is not trusted yet: an interactive start asks first (-p does not)"}}
}

func (c *checkup) settings(warn io.Writer) doctor.Section {
	set, err := loadSettings(c.d, c.opts.Access, warn, nil)
	if err != nil {
		c.noSet = err.Error()
		return doctor.Section{Fatal: err.Error()}
	}
	c.set = set
	c.env = settingsEnv(set, warn)
	var s doctor.Section
	for _, f := range set.Files {
		var what []string
		if set.ModelSource == f {
			what = append(what, "model "+set.Model)
		}
		if set.Permissions.ModeSource == f {
			what = append(what, "defaultMode "+set.Permissions.DefaultMode)
		}
		if set.Permissions.DisableBypass == f {
			what = append(what, "bypassPermissions disabled")
		}
		for k, src := range set.EnvProject {
			if src == f {
				what = append(what, "env "+k)
			}
		}
		sort.Strings(what)
		s.Files = append(s.Files, doctor.File{Path: f, Status: doctor.Loaded, Detail: strings.Join(what, ", ")})
	}
	for _, f := range set.Skipped {
		s.Files = append(s.Files, doctor.File{Path: f, Status: doctor.Skipped})
	}
	return s
}

// model resolves the model and its provider as a run does, and says where requests go
// and where the key comes from. A missing key is fatal: no run could start.
func (c *checkup) model(warn io.Writer) doctor.Section {
	if s, skip := c.skippedSettings(); skip {
		return s
	}
	var info []string
	if c.opts.Model.Provider == nil {
		info = resolve.Describe(resolve.Name(c.opts.Model.Name, c.set.Model, c.env), c.set, c.env).Lines()
	}
	m, err := connect(c.opts.Model, c.set.Model, c.env, warn)
	if err != nil {
		return doctor.Section{Fatal: err.Error(), Info: info}
	}
	c.m = m
	from := c.set.ModelSource
	switch {
	case c.opts.Model.Name != "":
		from = "--model"
	case c.env("OURO_MODEL") != "":
		from = "OURO_MODEL"
	case c.env("ANTHROPIC_MODEL") != "":
		from = "ANTHROPIC_MODEL"
	case from == "":
		from = "(default)"
	}
	return doctor.Section{Files: []doctor.File{{Path: from, Status: doctor.Loaded, Detail: m.name}}, Info: info}
}

// skippedSettings is what later sections say when the settings could not be loaded.
func (c *checkup) skippedSettings() (doctor.Section, bool) {
	if c.noSet == "" {
		return doctor.Section{}, false
	}
	return doctor.Section{Warnings: []string{"not checked: the settings could not be loaded (see above)"}}, true
}

func (c *checkup) permissions(warn io.Writer) doctor.Section {
	if s, skip := c.skippedSettings(); skip {
		return s
	}
	ws, err := workspace.New(c.d.cwd)
	if err != nil {
		return doctor.Section{Fatal: err.Error()}
	}
	for _, a := range c.opts.Dirs.Add {
		if err := ws.AddRoot(a); err != nil {
			return doctor.Section{Fatal: "--add-dir: " + err.Error()}
		}
	}
	userHome, _ := os.UserHomeDir()
	pol, err := newPolicy(c.set, c.d.cwd, ws, userHome, nil, warn, nil)
	if err != nil {
		return doctor.Section{Fatal: err.Error()}
	}
	c.policy, c.ws = pol, ws
	p := c.set.Permissions
	counts := map[string][3]int{}
	var order []string
	for i, list := range [][]settings.Rule{p.Allow, p.Ask, p.Deny} {
		for _, r := range list {
			n, seen := counts[r.Source]
			if !seen {
				order = append(order, r.Source)
			}
			n[i]++
			counts[r.Source] = n
		}
	}
	var s doctor.Section
	for _, src := range order {
		n := counts[src]
		s.Files = append(s.Files, doctor.File{Path: src, Status: doctor.Loaded,
			Detail: fmt.Sprintf("%d allow, %d ask, %d deny", n[0], n[1], n[2])})
	}
	mode := p.DefaultMode
	if mode == "" {
		mode = "default"
	}
	if len(s.Files) == 0 {
		s.Files = append(s.Files, doctor.File{Path: "(no rules)", Status: doctor.Loaded, Detail: "mode " + mode})
	} else {
		s.Files[0].Detail += "; mode " + mode
	}
	return s
}

// sandbox sets up the OS sandbox as a run does (setupSandbox): the availability probe,
// the filtering proxy when allowedDomains asks for one (started, then closed), the
// excluded commands. An error there stops a run.
func (c *checkup) sandbox(warn io.Writer) doctor.Section {
	if s, skip := c.skippedSettings(); skip {
		return s
	}
	if c.policy == nil {
		return doctor.Section{Warnings: []string{"not checked: the permission rules could not be loaded (see above)"}}
	}
	tmp, err := os.MkdirTemp("", "ouro-doctor-")
	if err != nil {
		return doctor.Section{Fatal: fmt.Sprintf("session temp dir: %v", err)}
	}
	defer os.RemoveAll(tmp)
	// Probe first (or read the cache), as the first command of a run would: Availability
	// alone starts no probe, so it could not say what the mode leaves out.
	verdict := sandbox.Probe()
	g := &guard{settings: c.set, policy: c.policy, tmpDir: tmp, gate: permission.NewGate(c.policy, nil, nil, nil)}
	userHome, _ := os.UserHomeDir()
	err = g.setupSandbox(guardEnv{settings: c.set, dirs: c.d, ws: c.ws, warn: warn}, c.opts.Access.SandboxLauncher, userHome)
	if g.proxy != nil {
		g.proxy.Close()
	}
	if err != nil {
		return doctor.Section{Fatal: err.Error()}
	}
	src := c.set.Sandbox.EnabledSource
	if src == "" {
		src = "(default)"
	}
	state := "off: Bash runs under the permission rules only"
	switch {
	case g.sandbox != nil && g.sandbox.NetworkRestricted():
		state = "on (" + sandbox.Mechanism() + "), network confined"
	case g.sandbox != nil:
		state = "on (" + sandbox.Mechanism() + "), network open"
	}
	if g.proxy != nil {
		state += " (allowedDomains through ouro's proxy)"
	}
	if g.sandbox != nil {
		// The verdict a command would get: the mode it runs in, or why it is refused.
		if v := verdict; v.Mode == sandbox.ModeUnavailable {
			state = "on but unavailable: Bash commands that would run in the sandbox are refused (" + v.Why + ")"
		} else {
			state += "; " + v.Describe()
		}
	}
	return doctor.Section{Files: []doctor.File{{Path: src, Status: doctor.Loaded, Detail: state}}}
}

func (c *checkup) hooks(warn io.Writer) doctor.Section {
	if s, skip := c.skippedSettings(); skip {
		return s
	}
	// A run's judge answers prompt hooks; doctor runs none, so its judge only refuses.
	judge := func(context.Context, hook.JudgeRequest) (hook.JudgeAnswer, error) {
		return hook.JudgeAnswer{}, errors.New("ouro doctor runs no hooks")
	}
	r, err := hook.New(hook.Config{Hooks: c.set.Hooks, ProjectDir: c.d.cwd, CWD: c.d.cwd, Judge: judge})
	if err != nil {
		return doctor.Section{Fatal: err.Error()}
	}
	reportHooks(r, warn)
	counts := map[string]map[string]int{}
	var order []string
	for ev, ms := range c.set.Hooks {
		for _, m := range ms {
			if counts[m.Source] == nil {
				counts[m.Source] = map[string]int{}
				order = append(order, m.Source)
			}
			counts[m.Source][ev] += len(m.Hooks)
		}
	}
	sort.Strings(order)
	var s doctor.Section
	for _, src := range order {
		var evs []string
		for ev, n := range counts[src] {
			evs = append(evs, fmt.Sprintf("%s ×%d", ev, n))
		}
		sort.Strings(evs)
		s.Files = append(s.Files, doctor.File{Path: src, Status: doctor.Loaded, Detail: strings.Join(evs, ", ")})
	}
	return s
}

func (c *checkup) agents(warn io.Writer) doctor.Section {
	defs, warns := subagent.LoadDefinitions(c.d.cwd, c.d.config)
	var s doctor.Section
	loaded := map[string]bool{}
	for _, d := range defs {
		if d.Path == "" {
			continue // built in
		}
		loaded[d.Path] = true
		s.Files = append(s.Files, doctor.File{Path: d.Path, Status: doctor.Loaded, Detail: "agent " + d.Name})
	}
	for _, w := range warns {
		fmt.Fprintf(warn, "ouro: agent %s\n", w) // as delegation prints them
		if !loaded[w.Path] {
			loaded[w.Path] = true
			s.Files = append(s.Files, doctor.File{Path: w.Path, Status: doctor.Skipped})
		}
	}
	return s
}

func (c *checkup) skills(warn io.Writer) doctor.Section {
	cat, warns := skill.Discover(skill.Options{Dir: c.d.cwd, Home: c.d.config})
	var s doctor.Section
	loaded := map[string]bool{}
	for _, k := range cat.Skills() {
		loaded[k.Path] = true
		what := "skill " + k.Name
		if k.Command {
			what = "command /" + k.Name
		}
		if k.DisableModelInvocation {
			what += " (only you may invoke it)"
		}
		s.Files = append(s.Files, doctor.File{Path: k.Path, Status: doctor.Loaded, Detail: what})
	}
	for _, w := range warns {
		fmt.Fprintf(warn, "ouro: skill %s\n", w) // as skill.Join prints them
		if !loaded[w.Path] {
			loaded[w.Path] = true
			s.Files = append(s.Files, doctor.File{Path: w.Path, Status: doctor.Skipped})
		}
	}
	// The listing in the system prompt, with the plugins' skills as openSkills adds them
	// (their warnings are the plugins section's), and what it cut.
	if len(c.opts.Plugins) > 0 {
		if extra := pluginSkills(loadPlugins(c.opts.Plugins, io.Discard), io.Discard); len(extra) > 0 {
			cat = skill.NewCatalog(append(cat.Skills(), extra...)...)
		}
	}
	s.Info = cat.Listing(0).Summary()
	return s
}

func (c *checkup) instructions(warn io.Writer) doctor.Section {
	check := memory.ReadCheck(nil)
	if c.policy != nil {
		check = (&guard{policy: c.policy}).importCheck
	}
	m := c.m
	if m.name == "" { // no provider: the budget of the model a run would ask for
		m = model{name: resolve.Name(c.opts.Model.Name, c.set.Model, settingsLookup(c.set)), window: c.opts.Model.ContextWindow}
	}
	in := memory.Load(c.d.cwd, repoRoot(c.d.cwd), c.d.config, check, memory.InstructionBudget(m.name, m.window))
	for _, w := range in.Warnings {
		fmt.Fprintf(warn, "ouro: instructions: %s\n", w) // as openContext prints them
	}
	var s doctor.Section
	seen := map[string]bool{}
	scoped := map[string]memory.Rule{}
	for _, r := range in.Rules {
		scoped[r.Path] = r
	}
	for _, p := range in.Sources {
		if seen[p] {
			continue
		}
		seen[p] = true
		if r, ok := scoped[p]; ok {
			s.Files = append(s.Files, doctor.File{Path: p, Status: doctor.OnDemand, Detail: "for files matching " + strings.Join(r.Globs, ", ")})
			continue
		}
		s.Files = append(s.Files, doctor.File{Path: p, Status: doctor.Loaded})
	}
	for _, p := range in.Skipped {
		if !seen[p] {
			seen[p] = true
			s.Files = append(s.Files, doctor.File{Path: p, Status: doctor.Skipped})
		}
	}
	c.nested(&s, in, check, seen, warn)
	return s
}

// nested loads the instruction files of the folders below the working directory as a
// session does when the agent first reads a file there (memory.Seam), and lists them.
func (c *checkup) nested(s *doctor.Section, in memory.Instructions, check memory.ReadCheck, seen map[string]bool, warn io.Writer) {
	dirs, more := memory.NestedDirs(c.d.cwd)
	if more {
		s.Warnings = append(s.Warnings, "the folders below the working directory hold too many entries to list them all; nested instruction files past the first were not checked")
	}
	od := &memory.OnDemand{CWD: c.d.cwd, RepoRoot: repoRoot(c.d.cwd), Home: c.d.config, Check: check,
		Loaded: in.Sources, Budget: math.MaxInt32}
	for _, dir := range dirs {
		found, warns := od.For(filepath.Join(dir, "\x00"), func(p string) bool { return seen[p] })
		for _, w := range warns {
			fmt.Fprintf(warn, "ouro: instructions: %s\n", w) // as memory.Seam prints them
		}
		rel, err := filepath.Rel(c.d.cwd, dir)
		if err != nil {
			rel = dir
		}
		for _, f := range found {
			if !seen[f.Path] {
				seen[f.Path] = true
				s.Files = append(s.Files, doctor.File{Path: f.Path, Status: doctor.OnDemand, Detail: "when a file in " + rel + " is first read or edited"})
			}
		}
	}
}

// settingsLookup reads a variable as the provider would: the environment, then the
// settings' env.
func settingsLookup(set *settings.Settings) func(string) string {
	return func(k string) string {
		if v, ok := os.LookupEnv(k); ok {
			return v
		}
		return set.Env[k]
	}
}

func (c *checkup) memory(warn io.Writer) doctor.Section {
	var s doctor.Section
	for _, st := range []*memory.Store{
		memory.Open(memory.ProjectMemoryDir(c.d.project), "project"),
		memory.Open(memory.UserMemoryDir(c.d.home), "user"),
	} {
		if _, err := os.Stat(st.Dir); errors.Is(err, os.ErrNotExist) {
			continue // none yet (List would create its lock file)
		}
		recs, err := st.List()
		if err != nil {
			fmt.Fprintf(warn, "ouro: memory: %s: %v\n", st.Dir, err)
			s.Files = append(s.Files, doctor.File{Path: st.Dir, Status: doctor.Skipped})
			continue
		}
		if len(recs) > 0 {
			s.Files = append(s.Files, doctor.File{Path: st.Dir, Status: doctor.Loaded, Detail: fmt.Sprintf("%d memories", len(recs))})
		}
	}
	return s
}
