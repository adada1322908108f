package main

import (
	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/ui"
)

func runREPL(cmd *cobra.Command, f *runFlags, first string) error {
	if err := checkTrust(cmd); err != nil {
		return err
	}
	r := &ui.REPL{In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr(), Version: version, Options: f.options()}
	return r.Run(cmd.Context(), first)
}
