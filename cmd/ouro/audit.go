package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/session"
)

// auditFile is the log's name in the project folder; harness.Open writes it there.
const auditFile = "audit.jsonl"

func newAuditCmd() *cobra.Command {
	var asJSON bool
	var tail int
	c := &cobra.Command{
		Use:   "audit [SESSION]",
		Short: "Show the permission decisions, tool runs and file changes of this directory's sessions",
		Long: `audit prints the audit log of the sessions run in this directory: every permission
decision with what made it (a rule and its file, the mode, a hook, the user, a headless
refusal), every call that ran with its status and duration, every file a call changed
with its hash before and after, and every hook run.

  ouro audit                 all sessions, grouped by session
  ouro audit 3f2a            one session, by ID or unique prefix (as --resume takes it)
  ouro audit --tail 20       the last 20 records
  ouro audit --json          the records as JSON lines, for jq and friends

The log is <OURO_HOME or ~/.ouro>/projects/<this directory>/audit.jsonl.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if tail < 0 {
				return fmt.Errorf("--tail must not be negative")
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			return runAudit(cmd.OutOrStdout(), cmd.ErrOrStderr(), id, tail, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the records as JSON lines")
	c.Flags().IntVar(&tail, "tail", 0, "print only the last N records (0 = all)")
	return c
}

func runAudit(out, errOut io.Writer, id string, tail int, asJSON bool) error {
	home, err := session.Home()
	if err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	proj := harness.ProjectDirFor(home, cwd)
	var info session.Info
	if id != "" {
		// The same lookup as --resume, so an ID that resumes a session shows its audit.
		if info, err = session.Find(proj, id); err != nil {
			return err
		}
	}
	path := filepath.Join(proj, auditFile)
	recs, readErr := permission.ReadAudit(path)
	if errors.Is(readErr, fs.ErrNotExist) {
		fmt.Fprintf(errOut, "ouro: no audit log for %s yet: looked for %s; it appears after the first run of ouro in this directory\n", cwd, path)
		return nil
	}
	if id != "" {
		kept := recs[:0]
		for _, r := range recs {
			if r.Session == info.ID {
				kept = append(kept, r)
			}
		}
		recs = kept
	}
	if tail > 0 && len(recs) > tail {
		recs = recs[len(recs)-tail:]
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false) // keep `ls && rm` readable
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	} else if len(recs) == 0 && readErr == nil {
		what := "the log"
		if id != "" {
			what = "session " + info.ID
		}
		fmt.Fprintf(errOut, "ouro: %s has no audit records (%s)\n", what, path)
	} else if err := printAudit(out, recs, summaries(proj)); err != nil {
		return err
	}
	// Damaged lines are reported after what could be read.
	return readErr
}

// printAudit writes the records one line each, grouped by session in the order each
// session first appears, under a header naming the session and its first prompt.
func printAudit(out io.Writer, recs []permission.AuditRecord, summary map[string]string) error {
	var order []string
	groups := map[string][]permission.AuditRecord{}
	for _, r := range recs {
		if _, ok := groups[r.Session]; !ok {
			order = append(order, r.Session)
		}
		groups[r.Session] = append(groups[r.Session], r)
	}
	var b strings.Builder
	for i, sid := range order {
		if i > 0 {
			b.WriteByte('\n')
		}
		g := groups[sid]
		name := sid
		if name == "" {
			name = "(no session)"
		}
		fmt.Fprintf(&b, "session %s  %d record%s", name, len(g), plural(len(g)))
		if s := summary[sid]; s != "" {
			fmt.Fprintf(&b, "  %q", s)
		}
		b.WriteByte('\n')
		for _, r := range g {
			b.WriteString("  " + r.String() + "\n")
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// summaries maps the project's session IDs to their first prompts; a session whose
// transcript is gone has none.
func summaries(proj string) map[string]string {
	all, _ := session.List(proj)
	m := make(map[string]string, len(all))
	for _, in := range all {
		m[in.ID] = in.Summary
	}
	return m
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
