package checkup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/doctor"
	"github.com/ouroagent/ouro/hook"
)

// plugins is doctor's section for the plugins a session loads (--plugin-dir's, and the
// installed ones enabledPlugins enables): each plugin's folder (skipped ones with why), and the files it adds — hooks files, skills, commands and agents — loaded
// through the functions a run uses, so their warnings read as a run prints them.
func (c *checkup) plugins(warn io.Writer) doctor.Section {
	var s doctor.Section
	ps := c.load.Plugins(c.cfg.Plugins, warn)
	loaded := map[string]bool{}
	for _, p := range ps {
		loaded[p.Root] = true
		what := "plugin " + p.Name
		if p.Version != "" {
			what += " " + p.Version
		}
		s.Files = append(s.Files, doctor.File{Path: p.Root, Status: doctor.Loaded, Detail: what})
		var evs []string
		for ev, gs := range p.Hooks {
			n := 0
			for _, g := range gs {
				n += len(g.Hooks)
			}
			evs = append(evs, fmt.Sprintf("%s ×%d", ev, n))
		}
		sort.Strings(evs)
		for _, f := range p.HookFiles {
			s.Files = append(s.Files, doctor.File{Path: f, Status: doctor.Loaded, Detail: "hooks: " + strings.Join(evs, ", ")})
		}
		if len(p.Hooks) > 0 { // checked as a run checks them when it starts
			judge := func(context.Context, hook.JudgeRequest) (hook.JudgeAnswer, error) {
				return hook.JudgeAnswer{}, errors.New("ouro doctor runs no hooks")
			}
			r, err := hook.New(hook.Config{Hooks: p.Hooks, ProjectDir: c.d.CWD, CWD: c.d.CWD, Judge: judge})
			if err != nil {
				s.Fatal = fmt.Sprintf("plugin %s: %v", p.Name, err)
			} else {
				c.load.ReportHooks(r, warn)
			}
		}
	}
	for _, k := range c.load.PluginSkills(ps, warn) {
		what := "skill /" + k.Name
		if k.Command {
			what = "command /" + k.Name
		}
		s.Files = append(s.Files, doctor.File{Path: k.Path, Status: doctor.Loaded, Detail: what})
	}
	for _, d := range c.load.PluginAgents(ps, warn) {
		s.Files = append(s.Files, doctor.File{Path: d.Path, Status: doctor.Loaded, Detail: "agent " + d.Name})
	}
	for _, d := range c.cfg.Plugins { // the warning says why (plugin <d> is skipped: ...)
		root, err := filepath.Abs(d)
		if err == nil {
			if r, err := filepath.EvalSymlinks(root); err == nil {
				root = r
			}
		}
		if !loaded[root] {
			loaded[root] = true
			s.Files = append(s.Files, doctor.File{Path: d, Status: doctor.Skipped})
		}
	}
	return s
}
