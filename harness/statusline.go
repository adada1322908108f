package harness

import (
	"fmt"

	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/statusline"
	"github.com/ouroagent/ouro/trust"
)

// StatusLine is the statusLine setting the session runs and the runner it runs through
// (the session's hooks: the same shell, launcher, environment and process-group kill as
// a command hook), or why it is not run. A project's own settings may run a command only
// in a folder the person trusts, the rule every project hook starts under; the person's
// own and managed settings always may. All zero when no file sets one.
func (s *Session) StatusLine() (sl settings.StatusLine, run statusline.Runner, why string) {
	sl = s.Settings().StatusLine
	if sl.Command == "" {
		return settings.StatusLine{}, nil, ""
	}
	if sl.Project {
		ok, _, err := trust.Trusted(s.userConfig, s.CWD)
		if !ok {
			why = fmt.Sprintf("%s: statusLine is not run: this folder is not trusted, and a project's settings run commands only in a folder you trust", sl.Source)
			if err != nil {
				why += fmt.Sprintf(" (%v)", err)
			}
			return sl, nil, why
		}
	}
	return sl, s.guard.hooks, ""
}

// StatusInput is what the session knows of the status line's input now: ids, places,
// model, output style and context window size. The screen adds what it counts (cost,
// tokens, durations, lines changed).
func (s *Session) StatusInput() statusline.Input {
	cwd := s.Workspace.CWD()
	return statusline.Input{
		SessionID: s.ID(), TranscriptPath: s.TranscriptPath(), CWD: cwd,
		Model:         statusline.Model{ID: s.Model, DisplayName: statusline.DisplayName(s.Model)},
		Workspace:     statusline.Workspace{CurrentDir: cwd, ProjectDir: s.CWD, AddedDirs: append([]string{}, s.Settings().Permissions.AdditionalDirectories...)},
		OutputStyle:   statusline.OutputStyle{Name: s.OutputStyle()},
		ContextWindow: statusline.ContextWindow{ContextWindowSize: s.ContextWindow()},
	}
}
