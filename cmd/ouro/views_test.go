package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The commands that show outside text (teammates, workflows, tasks, schedules, the audit
// log) print it escaped, the subcommands too, into the writer the root was given.
func TestViewCommandsEscapeWhatTheyPrint(t *testing.T) {
	root := newRootCmd()
	for _, name := range []string{"team", "workflow", "tasks", "cron", "audit"} {
		c, _, err := root.Find([]string{name})
		if err != nil || c.Name() != name || c.PersistentPreRun == nil {
			t.Errorf("%s: %v, not escaped", name, err)
		}
	}

	top := &cobra.Command{Use: "top"}
	view := &cobra.Command{Use: "view"}
	view.AddCommand(&cobra.Command{Use: "sub", Run: func(c *cobra.Command, _ []string) {
		fmt.Fprint(c.OutOrStdout(), "msg \x1b]52;c;aGk=\x07 \x1b[2J")
		fmt.Fprint(c.ErrOrStderr(), "err \x1b]0;t\x07")
	}})
	escapeOutput(view)
	top.AddCommand(view)
	var out, errb bytes.Buffer
	top.SetOut(&out)
	top.SetErr(&errb)
	top.SetArgs([]string{"view", "sub"})
	if err := top.Execute(); err != nil {
		t.Fatal(err)
	}
	if out.String() != `msg \x1b]52;c;aGk=\x07 \x1b[2J` || errb.String() != `err \x1b]0;t\x07` || strings.Contains(out.String()+errb.String(), "\x1b") {
		t.Fatalf("%q %q", out.String(), errb.String())
	}
}
