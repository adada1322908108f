package memory

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/internal/textcut"
)

// Index renders the saved memories of stores for the system prompt, as Claude Code puts
// its MEMORY.md in context: one line per record (name, type, scope, description), the most
// recently updated first, within budget characters; records that do not fit are counted.
// Recall then needs no model call: the model sees what exists, and each user turn gets the
// records its words match in full (Recaller, ranked locally). "" when nothing is saved.
func Index(stores []*Store, budget int) string {
	var all []Record
	for _, s := range stores {
		if s == nil {
			continue
		}
		rs, err := s.List()
		if err != nil {
			continue // a broken store must not stop the session
		}
		all = append(all, rs...)
	}
	if len(all) == 0 {
		return ""
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Updated.After(all[j].Updated) })
	const head = "<memory>\nMemories saved in earlier sessions (name (type, scope): description). Those that match a request are shown in full when it starts; they may be out of date.\n"
	const tail = "</memory>"
	var sb strings.Builder
	sb.WriteString(head)
	listed := 0
	for _, r := range all {
		line := fmt.Sprintf("- %s (%s, %s): %s\n", r.Name, r.Type, r.Scope, textcut.Runes(strings.Join(strings.Fields(r.Description), " "), 200, "…"))
		if sb.Len()+len(line)+len(tail)+80 > budget && listed > 0 {
			break
		}
		sb.WriteString(line)
		listed++
	}
	if left := len(all) - listed; left > 0 {
		fmt.Fprintf(&sb, "(%d older memories not listed; they are recalled when a request matches them)\n", left)
	}
	sb.WriteString(tail)
	return sb.String()
}
