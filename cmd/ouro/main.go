// Command ouro is a coding agent for the terminal: `ouro` starts an interactive session,
// `ouro -p PROMPT` runs one headless, `ouro demo` shows the loop with a scripted model and
// no API key, and `ouro fake-model` serves a scripted model over HTTP for testing.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	_ "github.com/ouroagent/ouro/internal/gcpace" // the collector's pace, set before the SDKs initialise
	"github.com/ouroagent/ouro/internal/lean"
	"github.com/ouroagent/ouro/internal/profile"
	"github.com/ouroagent/ouro/internal/termsafe"
	ver "github.com/ouroagent/ouro/internal/version"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/workflow/wfserve"
)

// version is ouro's version; `ouro --version` itself is answered in internal/version.
var version = ver.Version

// exitError carries a process exit status through cobra.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	lean.ReleaseInitPages() // what only initialisation touched (see internal/lean)
	// A sandboxed Bash command starts this binary as its launcher; that never returns.
	sandbox.MaybeRunLauncher()
	// A workflow runs in this binary started again as the workflow engine (a process
	// with the script's memory limit); that never returns either.
	wfserve.MaybeServe()
	stopProfile := profile.Start() // OURO_PROFILE=DIR: cpu.pprof and heap.pprof of this run
	code := run()
	stopProfile()
	os.Exit(code)
}

// run runs the command line and returns the exit status.
func run() int {
	root := newRootCmd()
	args, runRoot := normalizeArgs(root, os.Args[1:])
	if runRoot {
		root.ResetCommands() // `ouro -p fix`: "fix" is the prompt
	}
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		fmt.Fprintln(os.Stderr, "ouro:", termsafe.Escape(err.Error())) // an error can quote outside text
		return 1
	}
	return 0
}

func newRootCmd() *cobra.Command {
	f := &runFlags{}
	var showVersion bool
	root := &cobra.Command{
		Use:   "ouro [prompt]",
		Short: "A coding agent you can read end to end",
		Long: `ouro is a coding agent: a model proposes actions, ouro runs them under your
control, returns the results, and decides when a run has really ended.

  ouro                      start an interactive session in this directory
  ouro -p "fix the tests"   run one prompt headless and print the result
  ouro demo                 see the loop work with a scripted model (no API key)
  ouro acp                  serve ouro to an editor over the Agent Client Protocol (stdio)

Models: a Claude model name uses the Anthropic API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
or the apiKeyHelper command of your own settings, run again after a 401 and every
CLAUDE_CODE_API_KEY_HELPER_TTL_MS);
CLAUDE_CODE_USE_BEDROCK=1 serves it from Amazon Bedrock (AWS_REGION, the AWS credential
chain); openai:NAME uses any OpenAI-compatible server (OPENAI_API_KEY, OPENAI_BASE_URL);
scripted:FILE plays a script (see 'ouro fake-model --help'). Default: $OURO_MODEL or the
built-in default.

Effort and thinking: --effort low|medium|high|xhigh|max ($CLAUDE_CODE_EFFORT_LEVEL, the
effortLevel setting); extended thinking with --thinking enabled, --max-thinking-tokens N,
$MAX_THINKING_TOKENS or the alwaysThinkingEnabled setting (off otherwise).
Tuning, as in Claude Code (environment or settings env): BASH_DEFAULT_TIMEOUT_MS,
BASH_MAX_TIMEOUT_MS, BASH_MAX_OUTPUT_LENGTH, CLAUDE_CODE_MAX_OUTPUT_TOKENS,
MAX_MCP_OUTPUT_TOKENS, MCP_TIMEOUT, MAX_THINKING_TOKENS, DISABLE_PROMPT_CACHING.

Profiling: OURO_PROFILE=DIR writes DIR/cpu.pprof and DIR/heap.pprof of the run as it
ends, for 'go tool pprof' (the workflow engine and team workers it starts write theirs
in folders of DIR named after them).

Exit status of -p: 0 completed, 1 failed, 3 needs input, 4 budget exhausted, 5 refused,
130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if showVersion {
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "ouro %s\n", version)
				return err
			}
			return runMain(cmd, f, args)
		},
	}
	// --version is ouro's own flag, not cobra's: cobra prints its version through
	// text/template, and a program that executes a template keeps every exported method
	// of every type (templates call methods by name), which doubled the binary and the
	// memory of every run (TestBinaryMemory). The usual `ouro --version` never gets here:
	// internal/version answers it first.
	root.Flags().BoolVarP(&showVersion, "version", "v", false, "print ouro's version and exit")
	f.register(root)
	// A Claude Code flag ouro lacks is an error that names it, never ignored.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if !strings.HasPrefix(err.Error(), "unknown ") {
			return err // a bad value: pflag's message names the flag and says why
		}
		return fmt.Errorf("%w (ouro does not implement it; 'ouro %s--help' lists the flags it has)", err, subName(c))
	})
	root.AddCommand(newDemoCmd(), newFakeModelCmd())
	root.AddCommand(newMemoryCmd(), newDoctorCmd())
	root.AddCommand(newScoutCmd(), newFixCmd(), newEvalCmd())
	views := []*cobra.Command{newAuditCmd(), newCronCmd(), newTasksCmd(), newTeamCmd(), newWorkflowCmd(), newPluginCmd()}
	for _, c := range views {
		escapeOutput(c)
	}
	root.AddCommand(views...)
	// ouro acp's standard output is the protocol: never escaped.
	root.AddCommand(newMCPCmd(), newACPCmd())
	return root
}

// escapeOutput makes what c and its subcommands print pass through termsafe: they show
// text from outside ouro (teammates' messages and results, workflow logs and agents'
// answers, task subjects, scheduled prompts, audited commands), whose control sequences
// must not reach the terminal. JSON they print is unchanged: it escapes controls itself.
func escapeOutput(c *cobra.Command) {
	c.PersistentPreRun = func(c *cobra.Command, _ []string) {
		c.SetOut(termsafe.NewWriter(c.OutOrStdout()))
		c.SetErr(termsafe.NewWriter(c.ErrOrStderr()))
	}
}

// subName is "NAME " for a subcommand, "" for the root.
func subName(c *cobra.Command) string {
	if c.HasParent() {
		return c.Name() + " "
	}
	return ""
}
