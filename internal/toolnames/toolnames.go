// Package toolnames knows the tool names a Claude Code configuration may use (agents'
// tools, permission rules, hooks' matchers): ouro's own, and Claude Code's current and
// legacy names with ouro's equivalent where there is one.
package toolnames

import "strings"

// ouro are ouro's own tool names.
var ouro = map[string]bool{
	"Bash": true, "Glob": true, "Grep": true, "LS": true, "Read": true, "Edit": true, "Write": true,
	"WebFetch": true, "AskUserQuestion": true, "TodoWrite": true, "Skill": true, "Task": true, "Agent": true,
	"TaskCreate": true, "TaskGet": true, "TaskList": true, "TaskUpdate": true,
	"TaskOutput": true, "TaskStop": true, // background work (s11)
}

// claudeCode maps Claude Code's current and legacy tool names onto ouro's equivalent;
// "" marks a Claude Code tool ouro does not have (yet), which a definition may still name.
var claudeCode = map[string]string{
	"MultiEdit":            "Edit", // several edits to one file: Edit, one call per edit
	"NotebookRead":         "Read", // Read shows notebooks
	"NotebookEdit":         "",
	"BashOutput":           "TaskOutput", // background work's older names
	"KillShell":            "TaskStop",
	"KillBash":             "TaskStop",
	"WebSearch":            "",
	"SendMessage":          "", // teams (s13)
	"TeamCreate":           "",
	"TeamDelete":           "",
	"ExitPlanMode":         "",
	"EnterPlanMode":        "",
	"LSP":                  "", // code intelligence (ENABLE_LSP_TOOL)
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

// Map returns ouro's tool for name: name itself when ouro has it, its equivalent for a
// Claude Code name ("" when ouro has none), and known=false for a name neither knows. MCP
// tools (mcp__server__tool) are known, without an equivalent here.
func Map(name string) (ouroName string, known bool) {
	if ouro[name] {
		return name, true
	}
	if eq, ok := claudeCode[name]; ok {
		return eq, true
	}
	return "", strings.HasPrefix(name, "mcp__")
}

// All lists every name Map knows (MCP tools aside), for suggestions.
func All() []string {
	out := make([]string, 0, len(ouro)+len(claudeCode))
	for n := range ouro {
		out = append(out, n)
	}
	for n := range claudeCode {
		out = append(out, n)
	}
	return out
}

// Closest is the known name a typo most likely meant: the same name in another case, or
// the nearest one at most two edits away (one for names of four letters or fewer); ""
// when none is that near.
func Closest(name string) string {
	limit := 2
	if len(name) <= 4 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, n := range All() {
		if strings.EqualFold(n, name) {
			return n
		}
		if d := distance(strings.ToLower(n), strings.ToLower(name)); d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	if bestD > limit {
		return ""
	}
	return best
}

// distance is the edit distance between a and b, a swap of two neighbours counting as
// one edit (optimal string alignment).
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
