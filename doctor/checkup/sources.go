package checkup

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/doctor"
	"github.com/ouroagent/ouro/llm/resolve"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
)

func (c *checkup) agents(warn io.Writer) doctor.Section {
	defs, warns := subagent.LoadDefinitions(c.d.CWD, c.d.Config)
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
	cat, warns := skill.Discover(skill.Options{Dir: c.d.CWD, Home: c.d.Config})
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
	if len(c.cfg.Plugins) > 0 {
		if extra := c.load.PluginSkills(c.load.Plugins(c.cfg.Plugins, io.Discard), io.Discard); len(extra) > 0 {
			cat = skill.NewCatalog(append(cat.Skills(), extra...)...)
		}
	}
	s.Info = cat.Listing(0).Summary()
	return s
}

func (c *checkup) instructions(warn io.Writer) doctor.Section {
	check := memory.ReadCheck(nil)
	if c.policy != nil {
		check = c.load.ImportCheck(c.policy)
	}
	m := c.m
	if m.Name == "" { // no provider: the budget of the model a run would ask for
		m = resolve.Model{Name: resolve.Name(c.cfg.Model.Name, c.set.Model.Value, settingsLookup(c.set)), Window: c.cfg.Model.ContextWindow}
	}
	in := memory.Load(c.d.CWD, c.load.RepoRoot(c.d.CWD), c.d.Config, check, memory.InstructionBudget(m.Name, m.Window))
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
	dirs, more := memory.NestedDirs(c.d.CWD)
	if more {
		s.Warnings = append(s.Warnings, "the folders below the working directory hold too many entries to list them all; nested instruction files past the first were not checked")
	}
	od := &memory.OnDemand{CWD: c.d.CWD, RepoRoot: c.load.RepoRoot(c.d.CWD), Home: c.d.Config, Check: check,
		Loaded: in.Sources, Budget: math.MaxInt32}
	for _, dir := range dirs {
		found, warns := od.For(filepath.Join(dir, "\x00"), func(p string) bool { return seen[p] })
		for _, w := range warns {
			fmt.Fprintf(warn, "ouro: instructions: %s\n", w) // as memory.Seam prints them
		}
		rel, err := filepath.Rel(c.d.CWD, dir)
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
		memory.Open(memory.ProjectMemoryDir(c.d.Project), "project"),
		memory.Open(memory.UserMemoryDir(c.d.Home), "user"),
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
