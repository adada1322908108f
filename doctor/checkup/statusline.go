package checkup

import (
	"fmt"
	"io"

	"github.com/ouroagent/ouro/doctor"
	"github.com/ouroagent/ouro/trust"
)

// statusLine says which file's statusLine the terminal interface would run, and whether
// it would: a project's only in a trusted folder (harness.Session.StatusLine). Nothing
// is run.
func (c *checkup) statusLine(warn io.Writer) doctor.Section {
	if s, skip := c.skippedSettings(); skip {
		return s
	}
	sl := c.set.StatusLine
	if sl.Command == "" {
		return doctor.Section{}
	}
	f := doctor.File{Path: sl.Source, Status: doctor.Loaded, Detail: fmt.Sprintf("runs %q in the terminal interface", sl.Command)}
	if sl.Project {
		if ok, _, _ := trust.Trusted(c.d.Config, c.d.CWD); !ok {
			f.Status, f.Detail = doctor.Skipped, fmt.Sprintf("%q is not run: this folder is not trusted, and a project's settings run commands only in a folder you trust", sl.Command)
		}
	}
	return doctor.Section{Files: []doctor.File{f}}
}
