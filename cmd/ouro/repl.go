package main

import (
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/ui"
	"github.com/ouroagent/ouro/ui/tui"
)

// runREPL runs the terminal interface when standard input and output are both terminals
// (OURO_TUI=0 asks for the line mode), and the line mode otherwise, once the model can be
// reached and the folder is trusted.
func runREPL(cmd *cobra.Command, f *runFlags, first string) error {
	// No key, or a model no provider could serve: said before the trust question, whose
	// answer would not matter.
	if err := harness.CheckConnection(f.options()); err != nil {
		return err
	}
	if err := checkTrust(cmd); err != nil {
		return err
	}
	in, inOK := cmd.InOrStdin().(*os.File)
	out, outOK := cmd.OutOrStdout().(*os.File)
	if inOK && outOK && term.IsTerminal(in.Fd()) && term.IsTerminal(out.Fd()) && os.Getenv("OURO_TUI") != "0" {
		return tui.Run(cmd.Context(), tui.Options{In: in, Out: out, Version: version, Harness: f.options(), First: first})
	}
	r := &ui.REPL{In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr(), Version: version, Options: f.options()}
	return r.Run(cmd.Context(), first)
}
