package permission

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/shell"
	"github.com/ouroagent/ouro/tool"
)

// MatchesCall reports whether the rule matches a call, reading its input as the policy
// does: for Bash, any simple command of the line (with the variables it runs with, for
// rules that name them); for file tools, the path the tool acts on (relative paths from
// cwd); for WebFetch, the host; for Task/Agent and Skill, the name. A hook's "if" uses it.
func (r Rule) MatchesCall(c tool.Call, cwd, home string) bool {
	base := Subject{Tool: c.Name, CWD: cwd, Home: home}
	var in callInput
	if len(c.Input) > 0 && json.Unmarshal(c.Input, &in) != nil {
		return false
	}
	if c.Name == "Bash" {
		for _, cmd := range shell.Analyze(in.Command).Commands {
			s := base
			s.Command, s.Env = strings.Join(cmd.Argv, " "), strings.Join(cmd.Env, " ")
			if r.Match(s) {
				return true
			}
		}
		return false
	}
	s := base
	if p := filePathOf(c.Name, in); p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		s.Path = filepath.Clean(p)
	}
	if u, err := url.Parse(in.URL); err == nil {
		s.Host = u.Hostname()
	}
	s.Name = in.SubagentType
	if c.Name == "Skill" {
		s.Name = in.Skill
	}
	return r.Match(s)
}
