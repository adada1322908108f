package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/trust"
)

// errNotTrusted ends an interactive start in a folder the user did not trust.
var errNotTrusted = errors.New("this folder is not trusted, so ouro did not start here (nothing was run)")

// checkTrust asks Claude Code's first question before an interactive session opens in
// a folder the user has not trusted yet: the folder's settings may run hooks the moment
// the session starts. Only a person at a terminal is asked; with input from a pipe ouro
// is being scripted, like -p, and nothing is asked.
func checkTrust(cmd *cobra.Command) error {
	in, ok := cmd.InOrStdin().(*os.File)
	if !ok || !isTerminal(in) {
		return nil
	}
	cwd, home, _, err := mcpPlaces()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	trusted, _, err := trust.Trusted(home, cwd)
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "ouro: %v\n", err)
	}
	if trusted {
		return nil
	}
	fmt.Fprintf(out, "Do you trust the files in this folder?\n\n  %s\n\n"+
		"ouro may read, write and run files here, and the folder's settings can run commands\n"+
		"(hooks) as soon as a session starts. Go on only if the files come from a source you trust.\n\n"+
		"  1. Yes, proceed\n  2. No, exit\n", cwd)
	for {
		fmt.Fprint(out, "? ")
		line, err := readLine(in)
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "1", "y", "yes":
			if err := trust.Accept(home, cwd); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "ouro: the answer could not be saved, so you will be asked again next time: %v\n", err)
			}
			return nil
		case "2", "n", "no":
			return errNotTrusted
		}
		if err != nil {
			return errNotTrusted // end of input: no answer is no
		}
		fmt.Fprintln(out, "Answer 1 (yes, proceed) or 2 (no, exit).")
	}
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// readLine reads one line a byte at a time, so nothing after it is taken from the
// session's own reader.
func readLine(r io.Reader) (string, error) {
	var sb strings.Builder
	b := make([]byte, 1)
	for sb.Len() < 4096 {
		n, err := r.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				return sb.String(), nil
			}
			sb.WriteByte(b[0])
		}
		if err != nil {
			return sb.String(), err
		}
	}
	return sb.String(), nil
}
