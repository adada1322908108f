package hook

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/shell"
)

// condHolds reports whether a hook's "if" rule matches the call of a tool event, as a
// permission rule would: for Bash, any simple command of the line (with the variables it
// runs with, for rules that name them); for file tools, the path; for WebFetch, the
// host; for Task/Agent and Skill, the name.
func (r *Runner) condHolds(rule permission.Rule, in Input) bool {
	home, _ := os.UserHomeDir()
	cwd := in.CWD
	if cwd == "" {
		cwd = r.cfg.ProjectDir
	}
	base := permission.Subject{Tool: in.ToolName, CWD: cwd, Home: home}
	var args map[string]any
	_ = json.Unmarshal(in.ToolInput, &args)
	str := func(k string) string { v, _ := args[k].(string); return v }
	if in.ToolName == "Bash" {
		for _, c := range shell.Analyze(str("command")).Commands {
			s := base
			s.Command, s.Env = strings.Join(c.Argv, " "), strings.Join(c.Env, " ")
			if rule.Match(s) {
				return true
			}
		}
		return false
	}
	s := base
	for _, k := range []string{"file_path", "notebook_path", "path"} {
		if p := str(k); p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			s.Path = filepath.Clean(p)
			break
		}
	}
	if u, err := url.Parse(str("url")); err == nil {
		s.Host = u.Hostname()
	}
	s.Name = str("subagent_type")
	if s.Name == "" {
		s.Name = str("skill")
	}
	return rule.Match(s)
}
