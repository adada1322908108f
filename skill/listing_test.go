package skill

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Item 12 of issue 30: with 181 skills (a real collection's size) the listing no longer
// cuts every description to a stub. The budget grows with the number of skills up to
// MaxBudget; when that is not enough, as many skills as fit keep minDescription characters, the rest
// by name; every name stays, and Short says exactly what was cut.
func TestListingOf181SkillsKeepsDescriptionsUseful(t *testing.T) {
	var skills []Skill
	words := strings.Fields("extracts tables from reports and checks each figure against the source, then writes a summary & flags <anything> odd")
	for i := range 181 {
		n := 60 + (i*137)%700 // 60 to 759 characters, as real descriptions vary
		var d strings.Builder
		fmt.Fprintf(&d, "Use for task %d:", i)
		for j := 0; d.Len() < n; j++ {
			d.WriteString(" " + words[(i+j)%len(words)])
		}
		skills = append(skills, Skill{Name: fmt.Sprintf("gen-skill-%03d", i), Description: d.String(),
			Path: fmt.Sprintf("/home/u/.claude/skills/gen-skill-%03d/SKILL.md", i)})
	}
	l := NewCatalog(skills...).Listing(0)
	if l.Budget != Budget(181) || Budget(181) <= DefaultBudget || len(l.Text) > l.Budget || l.Skills != 181 {
		t.Fatalf("budget %d (Budget(181) %d), %d characters, %d skills", l.Budget, Budget(181), len(l.Text), l.Skills)
	}
	shown := map[string]string{} // name → description as listed, escaped
	body := l.Text[strings.Index(l.Text, "<available_skills>\n")+len("<available_skills>\n"):]
	for _, line := range strings.Split(strings.TrimSuffix(body, "</available_skills>"), "\n") {
		if line == "" {
			continue
		}
		name, d, _ := strings.Cut(strings.TrimPrefix(line, "- "), ": ")
		shown[name] = d
	}
	floor := minDescription - 1 // a space before the "…" is dropped
	useful, whole := 0, 0
	cuts := map[string]Cut{}
	for _, c := range l.Short {
		cuts[c.Name] = c
	}
	for _, s := range skills {
		d, ok := shown[s.Name]
		if !ok {
			t.Fatalf("%s is not listed", s.Name)
		}
		full := utf8.RuneCountInString(s.Description)
		kept := utf8.RuneCountInString(strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(d))
		switch c, cut := cuts[s.Name]; {
		case kept == full && d != "":
			whole++
			if cut {
				t.Errorf("%s is whole but reported cut: %+v", s.Name, c)
			}
		case !cut || c.Kept != kept || c.Full != full:
			t.Errorf("%s shows %d of %d characters, reported %+v", s.Name, kept, full, c)
		case kept > 0 && kept < floor:
			t.Errorf("%s cut to a stub of %d characters: %q", s.Name, kept, d)
		}
		if kept >= floor || (kept == full && d != "") {
			useful++
		}
	}
	// Claude Code kept at least 120 characters for 82 of the same 181.
	if useful < 82 || len(l.Short) == 0 {
		t.Fatalf("%d of 181 descriptions useful (%d whole), %d cut", useful, whole, len(l.Short))
	}
	t.Logf("181 skills: %d characters of %d; %d descriptions whole, %d useful, %d shortened", len(l.Text), l.Budget, whole, useful, len(l.Short))
	sum := strings.Join(l.Summary(), "\n")
	last := skills[180].Name
	if !strings.Contains(sum, fmt.Sprintf("descriptions shortened for %d of 181 skills", len(l.Short))) || !strings.Contains(sum, "listed by name alone") ||
		!strings.Contains(sum, last) || !strings.Contains(l.Text, "by name alone") {
		t.Errorf("summary:\n%s", sum)
	}

	// Few skills: the default budget, and a listing that fits says nothing was cut.
	small := NewCatalog(skills[:3]...).Listing(0)
	if small.Budget != DefaultBudget || len(small.Short) != 0 || len(small.Summary()) != 1 {
		t.Errorf("3 skills: %+v %q", small, small.Summary())
	}
}

// Budget grows with the number of skills, from DefaultBudget to MaxBudget.
func TestBudgetGrowsWithSkillsUpToABound(t *testing.T) {
	if Budget(1) != DefaultBudget || Budget(60) != 60*PerSkillBudget || Budget(10000) != MaxBudget {
		t.Fatalf("%d %d %d", Budget(1), Budget(60), Budget(10000))
	}
}
