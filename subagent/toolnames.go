package subagent

import (
	"sort"
	"strings"

	"github.com/ouroagent/ouro/tool/toolnames"
)

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
		m, known := toolnames.Map(n)
		switch {
		case !known:
			unknown = append(unknown, n)
			continue
		case m == "":
			missing = append(missing, n)
			continue
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
