package skill

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ouroagent/ouro/internal/textcut"
)

// DefaultBudget is the catalog's size in characters when Prompt is given 0 and there are
// few skills: Budget grows it with their number.
const DefaultBudget = 8000

// PerSkillBudget is what Budget allows each skill: a line with its name and a
// description of about 150 characters, room Claude Code gives too.
const PerSkillBudget = 200

// MaxBudget bounds Budget: about 6000 tokens, 3% of a 200k-token context window, however
// many skills there are (Claude Code's own listing takes about 2%).
const MaxBudget = 24000

// minDescription is the shortest a description is cut to: shorter, it no longer tells
// a model what the skill is for (Claude Code keeps at least this much where it keeps one).
const minDescription = 120

// Budget is the catalog's size for n skills when Prompt is given 0: DefaultBudget, or
// PerSkillBudget a skill when that is more, up to MaxBudget.
func Budget(n int) int { return min(max(DefaultBudget, n*PerSkillBudget), MaxBudget) }

const promptIntro = `Skills are folders of instructions, scripts and reference files for particular tasks. Only their names and descriptions are listed here. When a task matches a skill's description, call the Skill tool with its name (and any arguments) before you start: it returns the skill's instructions and lists its files, which you can then open with Read.`

// namesOnlyNote follows the intro when some skills are listed by name alone.
const namesOnlyNote = ` Some skills are listed by name alone, for want of room: when a name suggests the task, call the Skill tool with it to read the skill.`

// Listing is the catalog as the system prompt shows it, and what it left out.
type Listing struct {
	Text   string
	Budget int // the budget it was rendered within (<0: none)
	Skills int // how many skills it lists
	// Short lists the skills whose descriptions are cut or left out, in catalog order.
	Short []Cut
	// NoLocations is true when the list is one line per skill, without each SKILL.md's
	// location (the Skill tool's answer gives it).
	NoLocations bool
}

// Cut is what the listing kept of one skill's description, in characters (runes).
type Cut struct {
	Name       string
	Kept, Full int
}

// Summary says, for a person (ouro doctor), how big the listing is and what it cut; nil
// when it shows every skill whole.
func (l Listing) Summary() []string {
	if l.Skills == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("skill listing in the system prompt: %d skills, %d of %d characters", l.Skills, len(l.Text), l.Budget)}
	if l.Budget < 0 {
		out[0] = fmt.Sprintf("skill listing in the system prompt: %d skills, %d characters", l.Skills, len(l.Text))
	}
	if l.NoLocations {
		out = append(out, "locations left out (one line per skill); the Skill tool gives them")
	}
	var cut, none []string
	lost := 0
	for _, c := range l.Short {
		lost += c.Full - c.Kept
		if c.Kept == 0 {
			none = append(none, c.Name)
		} else {
			cut = append(cut, fmt.Sprintf("%s (%d of %d)", c.Name, c.Kept, c.Full))
		}
	}
	if len(l.Short) > 0 {
		out = append(out, fmt.Sprintf("descriptions shortened for %d of %d skills, %d characters left out in all", len(l.Short), l.Skills, lost))
	}
	if len(cut) > 0 {
		out = append(out, fmt.Sprintf("cut (characters kept of the description): %s", strings.Join(cut, ", ")))
	}
	if len(none) > 0 {
		out = append(out, fmt.Sprintf("listed by name alone (%d): %s", len(none), strings.Join(none, ", ")))
	}
	return out
}

// Prompt is the text of Listing(budget).
func (c *Catalog) Prompt(budget int) string { return c.Listing(budget).Text }

// Listing renders the catalog of the skills the model may invoke for the system prompt: a
// short instruction to call the Skill tool, then <available_skills> with each skill's
// name, description and location. It stays within budget characters (0: Budget for the
// number of skills; <0: no limit) and never drops a name. When over, in this order, the
// first that fits:
//
//  1. every description cut to the same length, no shorter than minDescription;
//  2. one line per skill (name: description, the location left to the Skill tool's
//     answer), descriptions cut alike, no shorter than minDescription;
//  3. one line per skill, as many skills as fit in catalog order (project, then user,
//     then plugins) with descriptions cut to minDescription, the others by name alone.
//
// A description is never cut to a stub: one too short to tell a model what the skill
// does costs room and says nothing (with 181 skills, cutting all alike left about 14
// characters each). Step 3 prefers more skills described enough to be chosen to fewer
// described whole: a model cannot choose a skill by a name alone, and the Skill tool's
// answer gives the whole skill once chosen. Only when the names alone exceed the budget
// is it exceeded. No invocable skill renders as "".
func (c *Catalog) Listing(budget int) Listing {
	skills := c.ForModel()
	if len(skills) == 0 {
		return Listing{}
	}
	if budget == 0 {
		budget = Budget(len(skills))
	}
	descs := make([]string, len(skills))
	longest := 0
	for i, s := range skills {
		descs[i] = oneLine(s.Description)
		longest = max(longest, utf8.RuneCountInString(descs[i]))
	}
	l := Listing{Budget: budget, Skills: len(skills)}
	uniform := func(n int) []int {
		lim := make([]int, len(skills))
		for i := range lim {
			lim[i] = n
		}
		return lim
	}
	full := renderXML(skills, descs, uniform(-1))
	if budget < 0 || len(full) <= budget {
		l.Text = full
		return l
	}
	if out, n, ok := fit(budget, minDescription, longest, func(n int) string { return renderXML(skills, descs, uniform(n)) }); ok {
		return l.with(out, skills, descs, uniform(n), false)
	}
	if out, n, ok := fit(budget, minDescription, longest, func(n int) string { return renderLines(skills, descs, uniform(n), false) }); ok {
		return l.with(out, skills, descs, uniform(n), true)
	}
	lim := atFloor(budget, skills, descs)
	out := renderLines(skills, descs, lim, true)
	if len(out) > budget { // the names alone are too many: not even the note fits
		out = renderLines(skills, descs, lim, false)
	}
	return l.with(out, skills, descs, lim, true)
}

// atFloor chooses the description limits of step 3 of Listing: minDescription for as
// many skills as fit in catalog order, 0 (the name alone) for the rest.
func atFloor(budget int, skills []Skill, descs []string) []int {
	lim := make([]int, len(skills))
	room := budget - len(renderLines(skills, descs, lim, true))
	for i, d := range descs {
		if cost := len(": ") + escapedLen(shorten(d, minDescription)); d != "" && cost <= room {
			lim[i] = minDescription
			room -= cost
		}
	}
	return lim
}

// with fills in the listing rendered as out with the description limits lim.
func (l Listing) with(out string, skills []Skill, descs []string, lim []int, lines bool) Listing {
	l.Text, l.NoLocations = out, lines
	for i, d := range descs {
		full := utf8.RuneCountInString(d)
		if kept := utf8.RuneCountInString(shorten(d, lim[i])); kept < full {
			l.Short = append(l.Short, Cut{Name: skills[i].Name, Kept: kept, Full: full})
		}
	}
	return l
}

// fit returns render(n) for the largest n in [lo, hi] whose text fits the budget, by
// binary search; ok is false when not even render(lo) fits.
func fit(budget, lo, hi int, render func(int) string) (string, int, bool) {
	if lo > hi || len(render(lo)) > budget {
		return "", 0, false
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if len(render(mid)) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	if len(render(hi)) <= budget {
		lo = hi
	}
	return render(lo), lo, true
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

// renderXML writes skills with description i cut to lim[i] runes (<0: whole).
func renderXML(skills []Skill, descs []string, lim []int) string {
	var sb strings.Builder
	sb.Grow(len(promptIntro) + 200*len(skills))
	sb.WriteString(promptIntro)
	sb.WriteString("\n\n<available_skills>\n")
	for i, s := range skills {
		sb.WriteString("<skill>\n<name>")
		escape(&sb, s.Name)
		sb.WriteString("</name>\n<description>")
		escape(&sb, shorten(descs[i], lim[i]))
		sb.WriteString("</description>\n<location>")
		escape(&sb, s.Path)
		sb.WriteString("</location>\n</skill>\n")
	}
	sb.WriteString("</available_skills>")
	return sb.String()
}

// renderLines writes one line per skill, "- name: description" with description i cut
// to lim[i] runes (<0: whole; 0: the name alone). namesOnly adds the note that some
// skills are listed by name alone when one is.
func renderLines(skills []Skill, descs []string, lim []int, namesOnly bool) string {
	var sb strings.Builder
	sb.Grow(len(promptIntro) + 40*len(skills))
	sb.WriteString(promptIntro)
	if namesOnly && slices.ContainsFunc(lim, func(n int) bool { return n == 0 }) {
		sb.WriteString(namesOnlyNote)
	}
	sb.WriteString("\n\n<available_skills>\n")
	for i, s := range skills {
		sb.WriteString("- ")
		escape(&sb, s.Name)
		if d := shorten(descs[i], lim[i]); lim[i] != 0 && d != "" {
			sb.WriteString(": ")
			escape(&sb, d)
		}
		sb.WriteString("\n")
	}
	sb.WriteString("</available_skills>")
	return sb.String()
}

// escapedLen is the length of s as escape writes it.
func escapedLen(s string) int {
	return len(s) + 3*strings.Count(s, "<") + 3*strings.Count(s, ">") + 4*strings.Count(s, "&")
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
