package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
)

// errDoctorFatal makes `ouro doctor` exit 1 after its report: a run would not start.
var errDoctorFatal = fmt.Errorf("a configuration problem stops ouro from starting (see the report)")

func newDoctorCmd() *cobra.Command {
	var asJSON bool
	opts := harness.Options{Access: harness.Access{SandboxLauncher: true}} // main runs the launcher first
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Show what ouro loads from every configuration file here, and every warning",
		Long: `doctor loads every configuration source exactly as a session in this directory
would — managed, user, project and local settings, the model, permission rules, the
sandbox, hooks, the status line (whose file, and whether it would run), agents, skills and
commands, plugins (--plugin-dir), instruction files (CLAUDE.md, AGENTS.md, imports, nested
ones), rules folders and memory — and prints, for each file, whether it was loaded,
loaded on demand (a rule with paths:, a nested CLAUDE.md) or skipped, and why, with
every warning, and where tasks, messages and journals are kept (a shared NATS store is
connected to, to see that it answers). MCP servers are listed with the file that defines
each, whether it is approved and whether it starts (each approved one is started within
MCP_TIMEOUT, then stopped; a project server not approved is never started). Last come the
keys of the settings files that ouro reads but does not honour, and the files of the
project's .claude and the user's ~/.claude folders that Claude Code reads and ouro does
not (key bindings, installed plugins, agent memory ...), each with its kind. Nothing else
is run: no hook, no status line, no model call.

The model section says where model requests go (the base URL: https://api.anthropic.com
unless ANTHROPIC_BASE_URL, or OPENAI_BASE_URL for openai:NAME, names another) and where
the key comes from (the variable, and whether the environment or a settings file's env
set it; never the key, at most its last four characters).

Exit status: 0 when a session would start (warnings or not), 1 when a problem would stop
it (no API key, a broken project settings file, an invalid hook).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := harness.Doctor(opts)
			var err error
			if asJSON {
				err = r.WriteJSON(cmd.OutOrStdout())
			} else {
				err = r.WriteText(cmd.OutOrStdout())
			}
			if err != nil {
				return err
			}
			if r.Fatal() {
				return errDoctorFatal
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	c.Flags().StringVar(&opts.Access.Settings, "settings", "", "a settings file or inline JSON, as for a session")
	c.Flags().StringVar(&opts.Model.Name, "model", "", "the model to check: its provider, key and base URL, and the context window that sizes the instruction budget")
	c.Flags().StringSliceVar(&opts.Dirs.Add, "add-dir", nil, "more working directories, as for a session")
	c.Flags().StringArrayVar(&opts.Plugins, "plugin-dir", nil, "a Claude Code plugin folder, as for a session (repeatable)")
	return c
}
