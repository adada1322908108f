package hook

import (
	"os"

	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/tool"
)

// condHolds reports whether a hook's "if" rule matches the call of a tool event, read as
// the permission policy reads calls (permission.Rule.MatchesCall).
func (r *Runner) condHolds(rule permission.Rule, in Input) bool {
	home, _ := os.UserHomeDir()
	cwd := in.CWD
	if cwd == "" {
		cwd = r.cfg.ProjectDir
	}
	return rule.MatchesCall(tool.Call{ID: in.ToolUseID, Name: in.ToolName, Input: in.ToolInput}, cwd, home)
}
