package permission

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/shell"
	"github.com/ouroagent/ouro/tool"
)

// MatchesCall reports whether the rule matches a call, reading what the call does as the
// policy does (its actions, as Claude Code's tool of that name describes them): for a
// shell line, any simple command of it (with the variables it runs with, for rules that
// name them); for a file read or write, the path (relative paths from cwd); for a fetch,
// the host; for a subagent or a skill, the name. A hook's "if" uses it.
func (r Rule) MatchesCall(c tool.Call, cwd, home string) bool {
	acts, err := tool.DescribeByName(c)
	if err != nil {
		return false
	}
	for _, a := range acts {
		base := Subject{Tool: c.Name, Kind: a.Kind, Also: a.Also, CWD: cwd, Home: home, Name: a.Name}
		switch a.Kind {
		case tool.ActExec:
			for _, cmd := range shell.Analyze(a.Command).Commands {
				s := base
				s.Command, s.Env = strings.Join(cmd.Argv, " "), strings.Join(cmd.Env, " ")
				if r.Match(s) {
					return true
				}
			}
			continue
		case tool.ActRead, tool.ActWrite:
			matched := false
			for _, p := range a.Paths {
				if p == "" {
					continue
				}
				if !filepath.IsAbs(p) {
					p = filepath.Join(cwd, p)
				}
				s := base
				s.Path = filepath.Clean(p)
				matched = matched || r.Match(s)
			}
			if matched {
				return true
			}
			if len(a.Paths) > 0 && a.Paths[0] != "" {
				continue
			}
		case tool.ActNet:
			if u, err := url.Parse(a.URL); err == nil {
				base.Host = u.Hostname()
			}
		}
		if r.Match(base) {
			return true
		}
	}
	return false
}
