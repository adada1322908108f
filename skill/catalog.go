package skill

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ouroagent/ouro/internal/textcut"
)

// DefaultBudget is the catalog's size in characters when Prompt is given 0.
const DefaultBudget = 8000

// minDescription is the shortest a description is cut to before skills are dropped.
const minDescription = 60

const promptIntro = `Skills are folders of instructions, scripts and reference files for particular tasks. Only their names and descriptions are listed here. When a task matches a skill's description, call the Skill tool with its name (and any arguments) before you start: it returns the skill's instructions and lists its files, which you can then open with Read.`

// Prompt renders the catalog for the system prompt: a short instruction to call the
// Skill tool, then <available_skills> with each skill's name, description and location.
// It stays within budget characters (0: DefaultBudget; <0: no limit): when over,
// descriptions are shortened, then skills dropped, with a final line saying how many
// were left out. An empty catalog renders as "".
func (c *Catalog) Prompt(budget int) string {
	if c.Len() == 0 {
		return ""
	}
	if budget == 0 {
		budget = DefaultBudget
	}
	full := c.render(len(c.skills), -1)
	if budget < 0 || len(full) <= budget {
		return full
	}
	// Shorten descriptions: the largest cap that fits, by binary search.
	longest := 0
	for _, s := range c.skills {
		longest = max(longest, utf8.RuneCountInString(s.Description))
	}
	if len(c.render(len(c.skills), minDescription)) <= budget {
		lo, hi := minDescription, longest // lo fits, hi does not
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if len(c.render(len(c.skills), mid)) <= budget {
				lo = mid
			} else {
				hi = mid
			}
		}
		return c.render(len(c.skills), lo)
	}
	// Drop skills from the end until it fits.
	lo, hi := 0, len(c.skills) // lo fits (or is 0), hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if len(c.render(mid, minDescription)) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	out := c.render(lo, minDescription)
	if len(out) > budget && lo == 0 {
		return textcut.Bytes(out, budget, "")
	}
	return out
}

// render writes the first n skills with descriptions cut to limit runes (<0: whole).
func (c *Catalog) render(n, limit int) string {
	var sb strings.Builder
	sb.Grow(len(promptIntro) + 200*n)
	sb.WriteString(promptIntro)
	sb.WriteString("\n\n<available_skills>\n")
	for _, s := range c.skills[:n] {
		sb.WriteString("<skill>\n<name>")
		escape(&sb, s.Name)
		sb.WriteString("</name>\n<description>")
		escape(&sb, shorten(oneLine(s.Description), limit))
		sb.WriteString("</description>\n<location>")
		escape(&sb, s.Path)
		sb.WriteString("</location>\n</skill>\n")
	}
	sb.WriteString("</available_skills>")
	if left := len(c.skills) - n; left > 0 {
		fmt.Fprintf(&sb, "\n%d more skill(s) not listed here for lack of space; the Skill tool's error for an unknown name lists every skill.", left)
	}
	return sb.String()
}

func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// shorten cuts s to limit runes, the marker included and no space left before it; a
// negative limit keeps s whole.
func shorten(s string, limit int) string {
	if limit < 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	return strings.TrimRight(textcut.Runes(s, limit-1, ""), " ") + "…"
}

func escape(sb *strings.Builder, s string) {
	if !strings.ContainsAny(s, "<>&") {
		sb.WriteString(s)
		return
	}
	for _, r := range s {
		switch r {
		case '<':
			sb.WriteString("&lt;")
		case '>':
			sb.WriteString("&gt;")
		case '&':
			sb.WriteString("&amp;")
		default:
			sb.WriteRune(r)
		}
	}
}
