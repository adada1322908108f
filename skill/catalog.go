package skill

import (
	"strings"
	"unicode/utf8"

	"github.com/ouroagent/ouro/internal/textcut"
)

// DefaultBudget is the catalog's size in characters when Prompt is given 0.
const DefaultBudget = 8000

// minDescription is the shortest a description is cut to before skills are dropped.
const minDescription = 60

const promptIntro = `Skills are folders of instructions, scripts and reference files for particular tasks. Only their names and descriptions are listed here. When a task matches a skill's description, call the Skill tool with its name (and any arguments) before you start: it returns the skill's instructions and lists its files, which you can then open with Read.`

// Prompt renders the catalog of the skills the model may invoke for the system prompt: a
// short instruction to call the Skill tool, then <available_skills> with each skill's
// name, description and location. It stays within budget bytes (0: DefaultBudget; <0: no
// limit) and never drops a name: when over, descriptions are shortened; when that is not
// enough, the list becomes one line per skill (name: shortened description, the location
// left to the Skill tool's answer), descriptions shrinking down to none. Only when the
// names alone exceed the budget is it exceeded. No invocable skill renders as "".
func (c *Catalog) Prompt(budget int) string {
	skills := c.ForModel()
	if len(skills) == 0 {
		return ""
	}
	if budget == 0 {
		budget = DefaultBudget
	}
	full := renderXML(skills, -1)
	if budget < 0 || len(full) <= budget {
		return full
	}
	longest := 0
	for _, s := range skills {
		longest = max(longest, utf8.RuneCountInString(s.Description))
	}
	if out, ok := fit(budget, minDescription, longest, func(n int) string { return renderXML(skills, n) }); ok {
		return out
	}
	if out, ok := fit(budget, 0, longest, func(n int) string { return renderLines(skills, n) }); ok {
		return out
	}
	return renderLines(skills, 0)
}

// fit returns render(n) for the largest n in [lo, hi] whose text fits the budget, by
// binary search; ok is false when not even render(lo) fits.
func fit(budget, lo, hi int, render func(int) string) (string, bool) {
	if len(render(lo)) > budget {
		return "", false
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if len(render(mid)) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return render(lo), true
}

// ForModel lists the skills the model may invoke (not disable-model-invocation).
func (c *Catalog) ForModel() []Skill {
	if c == nil {
		return nil
	}
	var out []Skill
	for _, s := range c.skills {
		if !s.DisableModelInvocation {
			out = append(out, s)
		}
	}
	return out
}

// renderXML writes skills with descriptions cut to limit runes (<0: whole).
func renderXML(skills []Skill, limit int) string {
	var sb strings.Builder
	sb.Grow(len(promptIntro) + 200*len(skills))
	sb.WriteString(promptIntro)
	sb.WriteString("\n\n<available_skills>\n")
	for _, s := range skills {
		sb.WriteString("<skill>\n<name>")
		escape(&sb, s.Name)
		sb.WriteString("</name>\n<description>")
		escape(&sb, shorten(oneLine(s.Description), limit))
		sb.WriteString("</description>\n<location>")
		escape(&sb, s.Path)
		sb.WriteString("</location>\n</skill>\n")
	}
	sb.WriteString("</available_skills>")
	return sb.String()
}

// renderLines writes one line per skill, "- name: description" with the description cut
// to limit runes (0: the name alone).
func renderLines(skills []Skill, limit int) string {
	var sb strings.Builder
	sb.Grow(len(promptIntro) + 40*len(skills))
	sb.WriteString(promptIntro)
	sb.WriteString("\n\n<available_skills>\n")
	for _, s := range skills {
		sb.WriteString("- ")
		escape(&sb, s.Name)
		if d := shorten(oneLine(s.Description), limit); limit > 0 && d != "" {
			sb.WriteString(": ")
			escape(&sb, d)
		}
		sb.WriteString("\n")
	}
	sb.WriteString("</available_skills>")
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
	if limit < 2 {
		return ""
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
