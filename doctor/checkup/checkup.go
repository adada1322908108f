package checkup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/doctor"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/internal/envtune"
	"github.com/ouroagent/ouro/llm/resolve"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/trust"
	"github.com/ouroagent/ouro/workspace"
)

// Run loads every configuration source as a session would for cfg, through the loaders
// a run calls (cfg.Loads), and reports each file: loaded, skipped and why, with every
// warning. Nothing runs but the MCP servers that may start (started to say whether they
// do, then stopped): no hook, no model call, no transcript. A new mechanism joins by
// adding its doctor.Source to the list below.
func Run(cfg Config) doctor.Report {
	c := &checkup{d: cfg.Dirs, cfg: cfg, load: cfg.Loads, set: &settings.Settings{}}
	return doctor.Run(
		doctor.Func{Title: "settings", F: c.settings},
		doctor.Func{Title: "model", F: c.model},
		doctor.Func{Title: "permissions", F: c.permissions},
		doctor.Func{Title: "sandbox", F: c.sandbox},
		doctor.Func{Title: "hooks", F: c.hooks},
		doctor.Func{Title: "status line", F: c.statusLine},
		doctor.Func{Title: "agents", F: c.agents},
		doctor.Func{Title: "skills", F: c.skills},
		doctor.Func{Title: "plugins", F: c.plugins},
		doctor.Func{Title: "mcp servers", F: c.mcp},
		doctor.Func{Title: "instructions and rules", F: c.instructions},
		doctor.Func{Title: "memory", F: c.memory},
		doctor.Func{Title: "trust", F: c.trust},
		doctor.Func{Title: "store", F: c.store},
		doctor.Func{Title: "settings ouro reads but does not honour", F: c.unhonoured},
		doctor.Func{Title: "files ouro sees but does not read", F: c.fileKinds},
	)
}

// checkup carries what the earlier sections loaded to the later ones, as a session's
// start does.
type checkup struct {
	d      Dirs
	cfg    Config
	load   Loads
	set    *settings.Settings
	policy *permission.Policy
	ws     *workspace.Workspace
	env    func(string) string // the connection variables, settings' env included
	m      resolve.Model
	noSet  string // why the settings could not be loaded
}

// trust says whether an interactive start here would first ask if the folder is trusted.
func (c *checkup) trust(warn io.Writer) doctor.Section {
	ok, by, err := trust.Trusted(c.d.Config, c.d.CWD)
	if err != nil {
		fmt.Fprintf(warn, "ouro: %v\n", err)
	}
	if ok {
		return doctor.Section{Files: []doctor.File{{Path: c.d.CWD, Status: doctor.Loaded, Detail: "trusted: " + by}}}
	}
	return doctor.Section{Warnings: []string{c.d.CWD + " is not trusted yet: an interactive start asks first (-p does not)"}}
}

func (c *checkup) settings(warn io.Writer) doctor.Section {
	set, err := c.load.Settings(warn)
	if err != nil {
		c.noSet = err.Error()
		return doctor.Section{Fatal: err.Error()}
	}
	c.set = set
	c.env = c.load.Env(set, warn)
	var s doctor.Section
	for _, f := range set.Files {
		var what []string
		if set.Model.Source == f {
			what = append(what, "model "+set.Model.Value)
		}
		if set.Permissions.DefaultMode.Source == f {
			what = append(what, "defaultMode "+set.Permissions.DefaultMode.Value)
		}
		if set.Permissions.DisableBypass == f {
			what = append(what, "bypassPermissions disabled")
		}
		if set.StatusLine.Source == f {
			what = append(what, "statusLine")
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
	if c.cfg.Model.Provider == nil {
		info = resolve.Describe(resolve.Name(c.cfg.Model.Name, c.set.Model.Value, c.env), c.set, c.env).Lines()
	}
	for _, w := range envtune.Read(c.env).Warnings {
		fmt.Fprintf(warn, "ouro: %s\n", w) // as a run warns: Claude Code's tuning variables
	}
	choice := c.cfg.Model
	choice.KeyHelper = resolve.KeyHelper(c.set, c.env, c.d.CWD, warn)
	m, err := resolve.Connect(choice, c.set.Model.Value, c.env, warn)
	if err != nil {
		return doctor.Section{Fatal: err.Error(), Info: info}
	}
	c.m = m
	from := c.set.Model.Source
	switch {
	case c.cfg.Model.Name != "":
		from = "--model"
	case c.env("OURO_MODEL") != "":
		from = "OURO_MODEL"
	case c.env("ANTHROPIC_MODEL") != "":
		from = "ANTHROPIC_MODEL"
	case from == "":
		from = "(default)"
	}
	return doctor.Section{Files: []doctor.File{{Path: from, Status: doctor.Loaded, Detail: m.Name}}, Info: info}
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
	ws, err := workspace.New(c.d.CWD)
	if err != nil {
		return doctor.Section{Fatal: err.Error()}
	}
	for _, a := range c.cfg.Add {
		if err := ws.AddRoot(a); err != nil {
			return doctor.Section{Fatal: "--add-dir: " + err.Error()}
		}
	}
	pol, err := c.load.Policy(c.set, ws, warn)
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
	mode := p.DefaultMode.Value
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

// sandbox sets up the OS sandbox as a run does (Loads.Sandbox): the availability probe,
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
	sb, err := c.load.Sandbox(c.set, c.policy, c.ws, tmp, warn)
	if err != nil {
		return doctor.Section{Fatal: err.Error()}
	}
	src := c.set.Sandbox.Enabled.From()
	if src == "" {
		src = "(default)"
	}
	state := "off: Bash runs under the permission rules only"
	switch {
	case sb.Policy != nil && sb.Policy.NetworkRestricted():
		state = "on (" + sandbox.Mechanism() + "), network confined"
	case sb.Policy != nil:
		state = "on (" + sandbox.Mechanism() + "), network open"
	}
	if sb.Proxied {
		state += " (allowedDomains through ouro's proxy)"
	}
	if sb.Policy != nil {
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
	r, err := hook.New(hook.Config{Hooks: c.set.Hooks, ProjectDir: c.d.CWD, CWD: c.d.CWD, Judge: judge})
	if err != nil {
		return doctor.Section{Fatal: err.Error()}
	}
	c.load.ReportHooks(r, warn)
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
