package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/scout"
	"github.com/ouroagent/ouro/scout/runner"
	"github.com/ouroagent/ouro/ui"
)

// scoutFlags are shared by ouro scout and ouro fix.
type scoutFlags struct {
	model       string
	settings    string
	maxTurns    int
	maxDuration time.Duration
	maxOutput   int
	deny        []string
	json        bool

	// fix only
	test     string
	allow    []string
	types    []string
	maxDiff  int
	dryRun   bool
	question string
}

func (f *scoutFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.model, "model", "", "model: a Claude model name, openai:NAME or scripted:FILE (default $OURO_MODEL)")
	fl.StringVar(&f.settings, "settings", "", "extra settings: a JSON file or an inline JSON object")
	fl.IntVar(&f.maxTurns, "max-turns", scout.DefaultMaxTurns, "stop after this many model turns")
	fl.DurationVar(&f.maxDuration, "max-duration", scout.DefaultMaxDuration, "stop after this much wall time")
	fl.IntVar(&f.maxOutput, "max-output-tokens", scout.DefaultMaxOutput, "longest model response, in tokens")
	fl.StringArrayVar(&f.deny, "deny", nil, `deny rules for what the run must not touch, e.g. "Read(./.env)"`)
	fl.BoolVar(&f.json, "json", false, "print the result as JSON: status, conclusions with their evidence, usage")
}

func (f *scoutFlags) config(dir, prompt string) scout.Config {
	return scout.Config{Dir: dir, Prompt: prompt, Model: f.model, Settings: f.settings,
		MaxTurns: f.maxTurns, MaxDuration: f.maxDuration, MaxOutput: f.maxOutput, Deny: splitRules(f.deny),
		SandboxLauncher: true, Version: version}
}

func (f *scoutFlags) check() error {
	if f.maxTurns <= 0 || f.maxDuration <= 0 || f.maxOutput <= 0 {
		return fmt.Errorf("--max-turns, --max-duration and --max-output-tokens must be positive: a scout run is always bounded")
	}
	return nil
}

func newScoutCmd() *cobra.Command {
	f := &scoutFlags{}
	c := &cobra.Command{
		Use:   "scout [DIR]",
		Short: "Survey a repository read-only; every conclusion cites a file location it was checked against",
		Long: `ouro scout reads a repository with Glob, Grep and Read only (plan mode: nothing
can be changed or run) and reports its entry points, core modules, how to run its tests
and its risks, each conclusion with its evidence as path:line.

Every citation is checked against what the run actually read. When the answer cites
something it never saw, the model is sent back once with the citations named; what is
still unsupported is marked [unverified] and the status says so.

The survey must have its four sections; one missing after the correction request makes
the status incomplete.

Exit status: 0 verified, 2 unverified or incomplete, otherwise as ouro -p (1 failed,
4 budget exhausted, 130 interrupted).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return runScout(cmd, f, f.config(dir, f.question))
		},
	}
	f.register(c)
	c.Flags().StringVarP(&f.question, "question", "q", "", "ask something specific instead of the standard survey")
	return c
}

func newFixCmd() *cobra.Command {
	f := &scoutFlags{}
	c := &cobra.Command{
		Use:   "fix [DIR] PROMPT",
		Short: "Make a guarded fix: limited edits, and done only when the tests pass",
		Long: `ouro fix is the scout with one guarded editing tool and one test command. Before
an edit runs it is checked: the path is inside the repository, the file is one --allow
permits and of a type --types permits, old_string occurs exactly once, and the run's
changed lines stay within --max-diff-lines. Bash runs the --test command and nothing
else (packages, and flags that select or report tests such as -run and -v, may follow
it; flags that run other programs, such as go test -exec, may not).

A fix is reported done only if the test command passes after the last edit: the model
is sent back once if it stops without a passing run, and ouro runs the command itself
at the end for the verdict.

With --dry-run the run has no write permission: each edit passes the same checks and is
then refused and listed as a proposal; nothing on disk changes.

Exit status: 0 fixed (or proposed, with --dry-run), 2 not fixed, otherwise as ouro -p.`,
		Example: `  ouro fix . "TestParse fails on empty input; fix the parser" --test "go test ./..." --allow "parse/*.go"
  ouro fix "make the unit tests pass" --test "python3 -m unittest"`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			dir, prompt := ".", args[0]
			if len(args) == 2 {
				dir, prompt = args[0], args[1]
			}
			test := f.test
			if test == "" {
				if test = detectTest(dir); test == "" {
					return fmt.Errorf("fix: no --test given and none detected in %s (no go.mod, no Python tests); pass --test \"COMMAND\"", dir)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "ouro: testing with %q (detected; --test overrides)\n", test)
			}
			var types []string
			for _, t := range splitRules(f.types) {
				if !strings.HasPrefix(t, ".") {
					t = "." + t
				}
				types = append(types, t)
			}
			cfg := f.config(dir, prompt)
			cfg.Fix = &scout.FixConfig{Test: test, Allowed: splitRules(f.allow), Extensions: types, MaxDiffLines: f.maxDiff, DryRun: f.dryRun}
			return runScout(cmd, f, cfg)
		},
	}
	f.register(c)
	fl := c.Flags()
	fl.StringVar(&f.test, "test", "", `the test command, e.g. "go test ./..." (default: detected from go.mod or Python tests)`)
	fl.StringArrayVar(&f.allow, "allow", nil, "files the fix may change (globs relative to DIR; default: any file of an allowed type)")
	fl.StringArrayVar(&f.types, "types", nil, "file types the fix may change, e.g. .go,.py (default: common source types)")
	fl.IntVar(&f.maxDiff, "max-diff-lines", scout.DefaultMaxDiffLines, "most lines the fix may add plus remove in all")
	fl.BoolVar(&f.dryRun, "dry-run", false, "grant no write permission: edits are checked and shown as proposals, nothing is written")
	return c
}

// detectTest guesses the test command of a repository.
func detectTest(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return "go test ./..."
	}
	for _, p := range []string{"tests", "test"} {
		if st, err := os.Stat(filepath.Join(dir, p)); err == nil && st.IsDir() {
			if m, _ := filepath.Glob(filepath.Join(dir, p, "test*.py")); len(m) > 0 {
				return "python3 -m unittest discover -s " + p
			}
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "test*.py")); len(m) > 0 {
		return "python3 -m unittest"
	}
	return ""
}

func runScout(cmd *cobra.Command, f *scoutFlags, cfg scout.Config) error {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	cfg.Warn = errOut
	if !f.json {
		cfg.Observers = []agent.Observer{progress(errOut)}
	}
	ctx, stop := notifyContext(cmd.Context())
	defer stop()
	res, err := runner.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		writeScoutReport(out, cfg, res)
	}
	switch {
	case res.OK():
		return nil
	case res.Status == scout.StatusUnverified || res.Status == scout.StatusNotFixed || res.Status == scout.StatusIncomplete:
		return exitError{2}
	default:
		return exitError{ui.ExitCode(res.Outcome)}
	}
}

// progress prints one line per tool call, so a long survey shows it is working.
func progress(w io.Writer) agent.Observer {
	return func(e agent.Event) {
		if e.Type == agent.EventToolStart && e.Call != nil {
			fmt.Fprintf(w, "  %s %s\n", e.Call.Name, textcut.Bytes(permission.SummarizeInput(*e.Call), 100, "…"))
		}
	}
}

// writeScoutReport prints the report with unsupported citations marked, then the verdict.
func writeScoutReport(w io.Writer, cfg scout.Config, r scout.Result) {
	report := r.Report
	for _, c := range r.Unverified {
		if quoted := "`" + c.Raw + "`"; strings.Contains(report, quoted) {
			report = strings.ReplaceAll(report, quoted, quoted+" [unverified]")
		} else {
			report = strings.ReplaceAll(report, c.Raw, c.Raw+" [unverified]")
		}
	}
	fmt.Fprintln(w, strings.TrimSpace(report))
	fmt.Fprintln(w)
	fmt.Fprintln(w, strings.Repeat("─", 60))
	n, ok := 0, 0
	for _, c := range r.Conclusions {
		for _, ci := range c.Citations {
			n++
			if ci.Verified {
				ok++
			}
		}
	}
	fmt.Fprintf(w, "status: %s", r.Status)
	if r.Reason != "" {
		fmt.Fprintf(w, " — %s", r.Reason)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "citations: %d of %d verified", ok, n)
	if r.Corrected {
		fmt.Fprint(w, " (after one correction request)")
	}
	fmt.Fprintln(w)
	for _, c := range r.Unverified {
		fmt.Fprintf(w, "  unverified %s: %s\n", c.Raw, c.Problem)
	}
	if len(r.MissingSections) > 0 {
		fmt.Fprintf(w, "missing sections: %s\n", strings.Join(r.MissingSections, ", "))
	}
	fmt.Fprintf(w, "files read: %d", len(r.FilesSeen))
	if len(r.FilesSeen) > 0 {
		fmt.Fprintf(w, " (%s)", textcut.Bytes(strings.ReplaceAll(strings.Join(r.FilesSeen, ", "), "\n", " "), 200, "…"))
	}
	fmt.Fprintln(w)
	if fx := r.Fix; fx != nil && len(fx.Proposed) > 0 {
		fmt.Fprintf(w, "proposed (not written, %d lines):\n", fx.DiffLines)
		for _, p := range fx.Proposed {
			fmt.Fprintf(w, "  %s\n%s\n%s\n", p.File, prefixLines(p.OldString, "    - "), prefixLines(p.NewString, "    + "))
		}
	}
	if ds := r.Outcome.Denials; r.Fix != nil && len(ds) > 0 {
		// Every refused call, by the fix guard or by the permission rules, with its reason:
		// "changed: nothing" alone would not say why.
		fmt.Fprintf(w, "refused (%d):\n", len(ds))
		for _, d := range ds {
			fmt.Fprintf(w, "  %s: %s\n", d.ToolName, textcut.Runes(strings.ReplaceAll(d.Reason, "\n", " "), 300, "…"))
		}
	}
	if fx := r.Fix; fx != nil && len(fx.Proposed) == 0 {
		fmt.Fprintf(w, "changed: %s (%d lines)\n", orNone(strings.Join(fx.Changed, ", ")), fx.DiffLines)
		fmt.Fprintf(w, "tests after the last edit (model): %v · %q now: %s\n", fx.TestedAfterEdit, cfg.Fix.Test, passFail(fx.TestPassed))
		if !fx.TestPassed {
			fmt.Fprintln(w, indent(textcut.LastLines(fx.TestOutput, 15)))
		}
	}
	o := r.Outcome
	fmt.Fprintf(w, "turns: %d · tokens: %d in, %d out · $%.4f · %s\n", o.Turns,
		o.Usage.InputTokens+o.Usage.CacheReadInputTokens+o.Usage.CacheCreationInputTokens, o.Usage.OutputTokens,
		o.CostUSD, o.Duration.Round(time.Millisecond))
	fmt.Fprintf(w, "transcript: %s\n", r.Transcript)
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

func passFail(ok bool) string {
	if ok {
		return "passes"
	}
	return "FAILS"
}

func prefixLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
