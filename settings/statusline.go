package settings

import (
	"fmt"
	"strings"
)

// StatusLine is Claude Code's statusLine setting: a command whose first line of output
// the terminal interface shows under the input. It is the person's configuration, like
// a command hook, and is taken like one: under allowManagedHooksOnly only a managed
// file's; a project's own file's only in a folder the person trusts, which the caller
// checks (Project says the value came from such a file).
type StatusLine struct {
	// Command is the shell command ("" when no file sets a status line).
	Command string
	// Padding is how many columns the line is inset by.
	Padding int
	// RefreshInterval, when above 0, also re-runs the command every that many seconds.
	RefreshInterval int
	// Source is the file that set it; Project says it is a repository's own file.
	Source  string
	Project bool
}

// statusLineFile is the key as a settings file holds it.
type statusLineFile struct {
	Type            *string `json:"type"`
	Command         *string `json:"command"`
	Padding         *int    `json:"padding"`
	RefreshInterval *int    `json:"refreshInterval"`
}

// mergeStatusLine takes the most specific file's statusLine, whole: its keys are not
// mixed with a less specific file's.
func mergeStatusLine(m *merger, s *Settings, f *file, l layer) {
	sl := f.StatusLine
	if sl == nil || m.set["statusLine"] {
		return
	}
	typ := "command"
	if sl.Type != nil {
		typ = strings.TrimSpace(*sl.Type)
	}
	cmd := ""
	if sl.Command != nil {
		cmd = strings.TrimSpace(*sl.Command)
	}
	switch {
	case typ != "command":
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: statusLine of type %q is ignored: ouro runs statusLine of type \"command\"", l.path, typ))
		return
	case cmd == "":
		s.Warnings = append(s.Warnings, l.path+": statusLine is ignored: it has no command")
		return
	case s.ManagedHooksOnly != "" && !l.managed:
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: statusLine is ignored: managed settings (%s) set allowManagedHooksOnly, so only their commands run", l.path, s.ManagedHooksOnly))
		return
	}
	m.set["statusLine"] = true
	v := StatusLine{Command: cmd, Source: l.path, Project: l.project()}
	if sl.Padding != nil && *sl.Padding > 0 {
		v.Padding = min(*sl.Padding, 40)
	}
	if sl.RefreshInterval != nil && *sl.RefreshInterval > 0 {
		v.RefreshInterval = *sl.RefreshInterval
	}
	s.StatusLine = v
}
