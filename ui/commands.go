package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/scout"
	"github.com/ouroagent/ouro/scout/runner"
	"github.com/ouroagent/ouro/session"
)

// Commands lists the REPL's commands with what each does (the terminal interface
// completes them).
var Commands = [][2]string{
	{"/help", "the commands and keys"},
	{"/status", "model, where requests go and the key comes from, session, mode, context and cost"},
	{"/model", "pick the model, or switch: /model NAME (/model --force NAME: one ouro does not know); --effort LEVEL sets the effort"},
	{"/effort", "the effort and thinking; /effort low|medium|high|xhigh|max|auto sets the effort"},
	{"/resume", "pick an earlier session of this folder to continue"},
	{"/rewind", "put code and/or conversation back to before a prompt"},
	{"/permissions", "the mode and rules; /permissions allow|ask|deny RULE saves one, remove RULE drops one"},
	{"/memory", "what the project and you have remembered"},
	{"/init", "write AGENTS.md from a scout of the repository"},
	{"/doctor", "check the configuration"},
	{"/config", "the effective settings and the files they came from"},
	{"/add-dir", "another working directory for this session: /add-dir DIR"},
	{"/agents", "the agent types found"},
	{"/output-style", "the output styles; /output-style NAME saves one for the next session"},
	{"/hooks", "the hooks configured and their files"},
	{"/context", "what fills the context window, in tokens"},
	{"/export", "write the conversation to a file: /export [PATH]"},
	{"/compact", "summarise the conversation to free context"},
	{"/cost", "tokens, cost and time of this session"},
	{"/todos", "the current todo list"},
	{"/tasks", "background tasks"},
	{"/skills", "the skills found"},
	{"/mcp", "MCP servers: status, tools, errors"},
	{"/goal", "show, set or clear the goal"},
	{"/loop", "run a prompt now and again"},
	{"/remember", "save durable facts to the project's memory"},
	{"/workflows", "how workflow runs are going"},
	{"/clear", "start a new session"},
	{"/exit", "leave ouro"},
}

// moreCommand runs the commands beyond the first ones; handled is false for names it
// does not know.
func (r *REPL) moreCommand(name, line string) (handled bool, err error) {
	args := strings.TrimSpace(strings.TrimPrefix(line, name))
	switch name {
	case "/status":
		r.status()
	case "/model":
		return true, r.model(args)
	case "/effort":
		return true, r.effort(strings.ToLower(args))
	case "/resume":
		return true, r.resume(args)
	case "/permissions":
		return true, r.permissions(args)
	case "/memory":
		return true, r.memory()
	case "/doctor":
		return true, harness.Doctor(r.Options).WriteText(r.Out)
	case "/export":
		return true, r.export(args)
	case "/init":
		return true, r.initAgents(args)
	case "/config":
		r.config()
	case "/add-dir":
		return true, r.addDir(args)
	case "/agents":
		r.agents()
	case "/output-style":
		return true, r.outputStyle(args)
	case "/hooks":
		r.hooks()
	case "/context":
		r.context()
	default:
		return false, nil
	}
	return true, nil
}

func (r *REPL) status() {
	s := r.sess
	fmt.Fprintf(r.Out, "ouro %s\n  model       %s\n  session     %s\n  transcript  %s\n  folder      %s\n  mode        %s\n",
		r.Version, s.Model, s.ID(), s.TranscriptPath(), s.CWD, s.Policy().Mode())
	c := s.Connection()
	fmt.Fprintf(r.Out, "  provider    %s\n", c.Provider)
	switch {
	case c.BaseURL != "":
		fmt.Fprintf(r.Out, "  base URL    %s (%s)\n", c.BaseURL, c.BaseFrom)
	case c.BaseFrom != "":
		fmt.Fprintf(r.Out, "  base URL    %s\n", c.BaseFrom)
	}
	switch {
	case c.Key != "":
		fmt.Fprintf(r.Out, "  key         %s\n", c.Key)
	case c.Note != "":
		fmt.Fprintf(r.Out, "  key         %s\n", c.Note)
	}
	if w := s.ContextWindow(); w > 0 {
		fmt.Fprintf(r.Out, "  context     %d messages, window %d tokens\n", len(s.Conv.Messages), w)
	}
	fmt.Fprintf(r.Out, "  thinking    %s\n", r.thinkingStatus())
	fmt.Fprintf(r.Out, "  cost        $%.4f over %d runs\n", r.totals.CostUSD, r.runs)
}

// reopen closes the session and opens it again with other options (another model, an
// earlier session); if that fails, the session is opened again as it was. Either way the
// permission mode and the rules answered "for this session" stay as they were: the user
// is still in the same session at the same terminal.
func (r *REPL) reopen(change func(o *harness.Options)) error {
	old := r.Options
	id := r.sess.ID()
	carried := r.sess.Policy().Carry()
	if err := r.sess.Close(); err != nil {
		fmt.Fprintln(r.Err, "ouro: closing the transcript:", err)
	}
	change(&r.Options)
	r.carry = &carried
	err := r.open()
	if err == nil {
		return nil
	}
	r.Options = old
	r.Options.Resume = harness.Resume{ID: id}
	r.carry = &carried
	if err2 := r.open(); err2 != nil {
		return fmt.Errorf("%v; reopening the session as it was failed too: %v", err, err2)
	}
	return err
}

// model shows the model and offers the others to pick from (/model), or switches to one
// a provider knows (/model NAME); /model --force NAME takes a name ouro does not know.
func (r *REPL) model(args string) error {
	args, effort, err := cutEffort(args)
	if err != nil {
		return err
	}
	if effort != "" && args == "" {
		return r.effort(effort)
	}
	force := false
	if rest, ok := strings.CutPrefix(args, "--force"); ok && (rest == "" || rest[0] == ' ') {
		force, args = true, strings.TrimSpace(rest)
		if args == "" {
			return errors.New("usage: /model --force NAME, for a model ouro's table does not know")
		}
	}
	if r.Options.Model.Provider != nil {
		if args == "" {
			fmt.Fprintf(r.Out, "model: %s\n", r.sess.Model)
			return nil
		}
		return errors.New("/model: this session's provider was set by its caller; the model cannot be switched")
	}
	name := args
	if name == "" {
		picked, ok, err := r.pickModel()
		if err != nil || !ok {
			return err
		}
		name = picked
	} else if !force {
		if err := r.sess.CheckModel(name); err != nil {
			return fmt.Errorf("/model: %w", err)
		}
	}
	id := r.sess.ID()
	if err := r.reopen(func(o *harness.Options) {
		o.Model.Name, o.Resume = name, harness.Resume{ID: id}
		if effort != "" {
			o.Model.Effort = strings.TrimPrefix(effort, "auto")
		}
	}); err != nil {
		return fmt.Errorf("/model %s: %w", name, err)
	}
	// The effort and thinking are said when set: a plain switch reads as it always did.
	extra := ""
	if e := r.sess.Effort(); e != "" {
		extra += " · effort: " + e
	}
	if t := r.sess.Thinking(); t.On() {
		extra += fmt.Sprintf(" · thinking: on (budget %d tokens where the model takes one)", t.Budget)
	}
	fmt.Fprintf(r.Out, "model: %s%s (the conversation goes on)\n", r.sess.Model, extra)
	return nil
}

// pickModel offers the models of the providers configured; ok is false when none was
// picked (or the one picked is the session's).
func (r *REPL) pickModel() (string, bool, error) {
	choices := r.sess.ModelChoices()
	labels := make([]string, len(choices))
	for i, c := range choices {
		labels[i] = c.Name
		if c.Current {
			labels[i] += " (current)"
		}
	}
	title := "Switch to which model? (/model NAME names another; /model --force NAME one ouro does not know)"
	var i int
	var ok bool
	if p, isPicker := r.Screen.(Picker); isPicker {
		i, ok = p.Pick(title, labels)
	} else {
		fmt.Fprintln(r.Out, title)
		for n, l := range labels {
			fmt.Fprintf(r.Out, "  %2d. %s\n", n+1, l)
		}
		r.inMu.Lock()
		choice, err := r.ask("Which? (its number; Enter cancels) ")
		r.inMu.Unlock()
		if err != nil || choice == "" {
			ok = false
		} else if n, err := strconv.Atoi(choice); err != nil || n < 1 || n > len(labels) {
			return "", false, fmt.Errorf("/model: %q is not a number from 1 to %d", choice, len(labels))
		} else {
			i, ok = n-1, true
		}
	}
	if !ok || choices[i].Current {
		fmt.Fprintf(r.Out, "model: %s (unchanged)\n", r.sess.Model)
		return "", false, nil
	}
	return choices[i].Name, true, nil
}

// resume lists this folder's sessions, newest first, and continues the one picked.
func (r *REPL) resume(arg string) error {
	home := r.Options.Dirs.Home
	if home == "" {
		h, err := session.Home()
		if err != nil {
			return err
		}
		home = h
	}
	list, err := session.List(harness.ProjectDirFor(home, r.sess.CWD))
	if err != nil {
		return fmt.Errorf("/resume: %w", err)
	}
	var others []session.Info
	for _, in := range list {
		if in.ID != r.sess.ID() && in.Messages > 0 {
			others = append(others, in)
		}
	}
	if len(others) == 0 {
		fmt.Fprintln(r.Out, "No earlier session with messages in this folder.")
		return nil
	}
	others = others[:min(len(others), 20)]
	for i, in := range others {
		fmt.Fprintf(r.Out, "  %2d. %s  %s  %d messages  %q\n", i+1, in.Modified.Format("2006-01-02 15:04"), in.ID[:min(8, len(in.ID))], in.Messages, Clip(in.Summary, 60))
	}
	choice := arg
	if choice == "" {
		r.inMu.Lock()
		choice, err = r.ask("Resume which? (its number; Enter cancels) ")
		r.inMu.Unlock()
		if err != nil || choice == "" {
			return nil
		}
	}
	n, err := strconv.Atoi(choice)
	if err != nil || n < 1 || n > len(others) {
		return fmt.Errorf("/resume: %q is not a number from 1 to %d", choice, len(others))
	}
	pick := others[n-1]
	if err := r.reopen(func(o *harness.Options) { o.Resume = harness.Resume{ID: pick.ID} }); err != nil {
		return fmt.Errorf("/resume: %w", err)
	}
	fmt.Fprintf(r.Out, "resumed session %s (%d messages of history)\n", r.sess.ID(), len(r.sess.Conv.Messages))
	r.showHistory()
	return nil
}

func (r *REPL) permissions(args string) error {
	p := r.sess.Policy()
	verb, rule, _ := strings.Cut(strings.TrimSpace(args), " ")
	rule = strings.TrimSpace(rule)
	switch verb {
	case "":
	case "allow", "ask", "deny":
		if rule == "" {
			return fmt.Errorf("usage: /permissions %s RULE, e.g. /permissions %s Bash(go test:*)", verb, verb)
		}
		if err := p.SaveLocalRule(verb, rule); err != nil {
			return fmt.Errorf("/permissions: %w", err)
		}
		fmt.Fprintf(r.Out, "%s rule %s added, saved to %s\n", verb, rule, p.LocalSettingsPath())
		return nil
	case "remove":
		if rule == "" {
			return errors.New("usage: /permissions remove RULE, the rule as /permissions lists it")
		}
		removed, elsewhere, err := p.RemoveLocalRule(rule)
		if err != nil {
			return fmt.Errorf("/permissions: %w", err)
		}
		if len(removed) > 0 {
			fmt.Fprintf(r.Out, "removed %s (%s) from %s and this session\n", rule, strings.Join(removed, ", "), p.LocalSettingsPath())
		}
		if len(elsewhere) > 0 {
			fmt.Fprintf(r.Out, "%s stays: it comes from %s; edit that file to remove it\n", rule, strings.Join(elsewhere, ", "))
		}
		if len(removed) == 0 && len(elsewhere) == 0 {
			return fmt.Errorf("/permissions: there is no rule %s; /permissions lists them", rule)
		}
		return nil
	default:
		return fmt.Errorf("/permissions: %q is not understood; /permissions shows the rules, /permissions allow|ask|deny RULE adds one, /permissions remove RULE takes one out", args)
	}
	deny, ask, allow := p.Rules()
	fmt.Fprintf(r.Out, "mode: %s (Shift-Tab cycles it in the terminal interface)\n", p.Mode())
	for _, g := range []struct {
		name  string
		rules []permission.Rule
	}{{"deny", deny}, {"ask", ask}, {"allow", allow}} {
		fmt.Fprintf(r.Out, "%s:\n", g.name)
		if len(g.rules) == 0 {
			fmt.Fprintln(r.Out, "  (none)")
		}
		for _, rl := range g.rules {
			fmt.Fprintf(r.Out, "  %s  — %s\n", rl.Text, rl.Source)
		}
	}
	fmt.Fprintf(r.Out, "/permissions allow|ask|deny RULE adds a rule to %s; /permissions remove RULE takes one out\n", p.LocalSettingsPath())
	return nil
}

func (r *REPL) memory() error {
	for _, st := range r.sess.MemoryStores() {
		recs, err := st.List()
		if err != nil {
			return fmt.Errorf("/memory: %w", err)
		}
		fmt.Fprintf(r.Out, "%s memory (%s): %d\n", st.Scope, st.Dir, len(recs))
		for _, rec := range recs {
			fmt.Fprintf(r.Out, "  %s — %s\n", rec.Name, Clip(rec.Description, 100))
		}
	}
	fmt.Fprintln(r.Out, "ouro memory show|forget|edit NAME manages them; /remember saves from this conversation.")
	return nil
}

// export writes the conversation as text to path (default ouro-<session>.txt here); an
// existing file is never overwritten.
func (r *REPL) export(path string) error {
	if path == "" {
		path = "ouro-" + r.sess.ID() + ".txt"
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.sess.CWD, path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("/export: %s exists; give another path", path)
		}
		return fmt.Errorf("/export: %w", err)
	}
	_, err = fmt.Fprintf(f, "ouro session %s, model %s, exported %s\n\n%s\n", r.sess.ID(), r.sess.Model,
		time.Now().Format(time.RFC3339), llm.RenderMessages(r.sess.Conv.Messages, 0))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("/export: %w", err)
	}
	fmt.Fprintf(r.Out, "exported %d messages to %s\n", len(r.sess.Conv.Messages), path)
	return nil
}

// initAgents surveys the repository with the scout (read-only, every conclusion checked
// against what it read) and writes the report as AGENTS.md; an existing one is kept
// unless the argument is "force".
func (r *REPL) initAgents(arg string) error {
	path := filepath.Join(r.sess.CWD, "AGENTS.md")
	if _, err := os.Lstat(path); err == nil && arg != "force" {
		return fmt.Errorf("/init: %s exists; /init force replaces it", path)
	}
	fmt.Fprintln(r.Out, "Surveying the repository (read-only)…")
	res, err := runner.Run(context.Background(), scout.Config{Dir: r.sess.CWD, Model: r.Options.Model.Name,
		Provider: r.Options.Model.Provider, Home: r.Options.Dirs.Home, SandboxLauncher: r.Options.Access.SandboxLauncher,
		Version: r.Version, Warn: r.Err})
	if err != nil {
		return fmt.Errorf("/init: %w", err)
	}
	if strings.TrimSpace(res.Report) == "" {
		return fmt.Errorf("/init: the survey ended %s without a report (%s); nothing was written", res.Status, res.Reason)
	}
	body := fmt.Sprintf("# AGENTS.md\n\nNotes for coding agents working in this repository, from a read-only survey (%s).\n\n%s\n",
		res.Status, strings.TrimSpace(res.Report))
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		return fmt.Errorf("/init: %w", err)
	}
	fmt.Fprintf(r.Out, "wrote %s (survey %s, %d conclusions, %d citations unverified)\n", path, res.Status, len(res.Conclusions), len(res.Unverified))
	return nil
}
