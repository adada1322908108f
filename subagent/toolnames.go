package subagent

import (
	"sort"
	"strings"
)

// ouroTools are the tools an agent definition may name as they are.
var ouroTools = map[string]bool{
	"Bash": true, "Glob": true, "Grep": true, "LS": true, "Read": true, "Edit": true, "Write": true,
	"WebFetch": true, "AskUserQuestion": true, "TodoWrite": true, "Skill": true, TaskName: true, AgentName: true,
}

// claudeCodeTools maps Claude Code's current and legacy tool names onto ouro's equivalent;
// "" marks a Claude Code tool ouro does not have (yet), which a definition may still name.
var claudeCodeTools = map[string]string{
	"MultiEdit":            "Edit", // several edits to one file: Edit, one call per edit
	"NotebookRead":         "Read", // Read shows notebooks
	"NotebookEdit":         "",
	"BashOutput":           "", // background shells (s11)
	"KillShell":            "",
	"KillBash":             "",
	"TaskOutput":           "",
	"TaskStop":             "",
	"WebSearch":            "",
	"TaskCreate":           "TodoWrite", // the task list (s10); until it lands, the plan tool
	"TaskGet":              "TodoWrite",
	"TaskList":             "TodoWrite",
	"TaskUpdate":           "TodoWrite",
	"SendMessage":          "", // teams (s13)
	"TeamCreate":           "",
	"TeamDelete":           "",
	"ExitPlanMode":         "",
	"EnterWorktree":        "",
	"ExitWorktree":         "",
	"Workflow":             "",
	"CronCreate":           "",
	"CronList":             "",
	"CronDelete":           "",
	"ListMcpResourcesTool": "",
	"ReadMcpResourceTool":  "",
	"SlashCommand":         "Skill",
}

// mapTools maps names onto ouro's tools, in order, without repeats. When warn is set, it
// warns once about every name that has no equivalent: a Claude Code tool ouro lacks, an
// MCP tool (no server is connected to definitions), or a name no agent harness knows.
func mapTools(names []string, field string, warn func(string, ...any)) []string {
	if names == nil {
		return nil
	}
	out := []string{}
	var missing, unknown []string
	seen := map[string]bool{}
	for _, n := range names {
		m := n
		if !ouroTools[n] {
			eq, known := claudeCodeTools[n]
			switch {
			case known && eq != "":
				m = eq
			case known, strings.HasPrefix(n, "mcp__"):
				missing = append(missing, n)
				continue
			default:
				unknown = append(unknown, n)
				continue
			}
		}
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	if warn != nil && len(missing)+len(unknown) > 0 {
		var parts []string
		if len(missing) > 0 {
			parts = append(parts, "not available in ouro: "+strings.Join(missing, ", "))
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			parts = append(parts, "unknown: "+strings.Join(unknown, ", "))
		}
		warn("%s: %s; the agent gets the others", field, strings.Join(parts, "; "))
	}
	return out
}
