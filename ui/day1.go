package ui

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The commands Claude Code users type on their first day: /config, /add-dir, /agents,
// /hooks and /context.

// config shows the effective settings and the files they came from.
func (r *REPL) config() {
	s := r.sess.Settings()
	w := r.Out
	fmt.Fprintln(w, "Settings files (most binding first):")
	if len(s.Files) == 0 {
		fmt.Fprintln(w, "  (none: the defaults apply)")
	}
	for _, f := range s.Files {
		fmt.Fprintf(w, "  %s\n", f)
	}
	for _, f := range s.Skipped {
		fmt.Fprintf(w, "  %s  (skipped: it cannot be used; see the warning at start)\n", f)
	}
	from := func(src string) string {
		if src == "" {
			return "default"
		}
		return "from " + src
	}
	modelSrc := s.Model.Source
	if s.Model.Value != r.sess.Model {
		modelSrc = "the command line, the environment or /model"
	}
	fmt.Fprintf(w, "model             %s (%s)\n", r.sess.Model, from(modelSrc))
	mode := r.sess.Policy().Mode()
	modeSrc := s.Permissions.DefaultMode.Source
	if string(mode) != s.Permissions.DefaultMode.Value && s.Permissions.DefaultMode.Value != "" {
		modeSrc = "changed in this session"
	}
	fmt.Fprintf(w, "permission mode   %s (%s)\n", mode, from(modeSrc))
	deny, ask, allow := r.sess.Policy().Rules()
	fmt.Fprintf(w, "rules             %d deny, %d ask, %d allow (/permissions lists them)\n", len(deny), len(ask), len(allow))
	n := 0
	for _, gs := range s.Hooks {
		for _, g := range gs {
			n += len(g.Hooks)
		}
	}
	fmt.Fprintf(w, "hooks             %d (/hooks lists them)\n", n)
	fmt.Fprintf(w, "directories       %s\n", strings.Join(r.sess.Workspace.Roots(), ", "))
	sandbox := "on"
	if s.Sandbox.Enabled != nil && !s.Sandbox.Enabled.Value {
		sandbox = "off"
	}
	fmt.Fprintf(w, "sandbox           %s (%s)\n", sandbox, from(s.Sandbox.Enabled.From()))
	if len(s.Env) > 0 {
		keys := make([]string, 0, len(s.Env))
		for k := range s.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "env               %s\n", strings.Join(keys, ", "))
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

// addDir adds a working directory for the rest of the session.
func (r *REPL) addDir(arg string) error {
	if strings.TrimSpace(arg) == "" {
		return fmt.Errorf("usage: /add-dir DIR, a directory the tools may also work in for this session")
	}
	dir, err := r.sess.AddDir(arg)
	if err != nil {
		return fmt.Errorf("/add-dir: %w", err)
	}
	fmt.Fprintf(r.Out, "added %s as a working directory for this session (permissions.additionalDirectories keeps it for the next ones)\n", dir)
	return nil
}

// agents lists the agent types the session can start.
func (r *REPL) agents() {
	for _, d := range r.sess.AgentDefinitions() {
		where := d.Source
		if d.Path != "" {
			where += ", " + d.Path
		}
		model := d.Model
		if model == "" {
			model = "inherit"
		}
		fmt.Fprintf(r.Out, "%s  (%s; model %s)\n    %s\n", d.Name, where, model, Clip(strings.Join(strings.Fields(d.Description), " "), 200))
	}
	fmt.Fprintln(r.Out, "Agents are defined in .claude/agents/ or .ouro/agents/ (NAME.md), here or in your home.")
}

// hooks lists the configured hooks with the file each came from.
func (r *REPL) hooks() {
	hs := r.sess.Settings().Hooks
	if len(hs) == 0 {
		fmt.Fprintln(r.Out, "No hooks configured (\"hooks\" in a settings file; /config lists the files).")
		return
	}
	events := make([]string, 0, len(hs))
	for e := range hs {
		events = append(events, e)
	}
	slices.Sort(events)
	for _, e := range events {
		fmt.Fprintf(r.Out, "%s:\n", e)
		for _, g := range hs[e] {
			m := g.Matcher
			if m == "" {
				m = "*"
			}
			src := g.Source
			if g.PluginRoot != "" {
				src = "plugin " + g.PluginRoot
			}
			for _, h := range g.Hooks {
				what := h.Command
				if what == "" {
					what = h.Prompt
				}
				fmt.Fprintf(r.Out, "  [%s] %s: %s  — %s\n", m, h.Type, Clip(strings.Join(strings.Fields(what), " "), 120), src)
			}
		}
	}
}

// context shows what fills the context window.
func (r *REPL) context() {
	u := r.sess.ContextUsage()
	total := u.Total()
	pct := func(n int) string {
		if u.Window <= 0 {
			return ""
		}
		return fmt.Sprintf("  %5.1f%%", 100*float64(n)/float64(u.Window))
	}
	w := r.Out
	if u.Window > 0 {
		fmt.Fprintf(w, "Context: ~%d of %d tokens (%.1f%%), %s\n", total, u.Window, 100*float64(total)/float64(u.Window), r.sess.Model)
	} else {
		fmt.Fprintf(w, "Context: ~%d tokens (%s: window unknown)\n", total, r.sess.Model)
	}
	fmt.Fprintf(w, "  system prompt  %7d tokens%s\n", u.System, pct(u.System))
	fmt.Fprintf(w, "    of which instructions %d tokens (%d files), memory index %d tokens\n", u.Instructions, len(u.InstructionFiles), u.Memory)
	fmt.Fprintf(w, "  tools          %7d tokens%s  (%d tools)\n", u.Tools, pct(u.Tools), u.ToolCount)
	fmt.Fprintf(w, "  messages       %7d tokens%s  (%d messages)\n", u.Messages, pct(u.Messages), u.MessageCount)
	if u.Window > 0 {
		fmt.Fprintf(w, "  free           %7d tokens%s\n", max(u.Window-total, 0), pct(max(u.Window-total, 0)))
	}
	for _, f := range u.InstructionFiles {
		fmt.Fprintf(w, "  instructions: %s\n", f)
	}
	fmt.Fprintln(w, "Estimates (about four bytes a token); /compact frees the messages' share.")
}
