package memory

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The index lists the most recently updated records first, one line each, within its
// budget, and counts what it leaves out.
func TestIndexIsBoundedAndRecentFirst(t *testing.T) {
	s := Open(t.TempDir(), "project")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa")
	for i := range 60 {
		s.Now = func() time.Time { return base.Add(time.Duration(i) * time.Hour) }
		if err := s.Save(Record{Name: fmt.Sprintf("fact-%02d", i), Description: fmt.Sprintf("%s %s %s", words[i%7], words[(i/7)%7+7], words[(i/49)%2+14]), Type: "project"}); err != nil {
			t.Fatal(err)
		}
	}
	if Index([]*Store{Open(t.TempDir(), "user")}, 3000) != "" {
		t.Error("an empty store gives an index")
	}
	idx := Index([]*Store{s, nil}, 1500)
	if len(idx) > 1500 || !strings.HasPrefix(idx, "<memory>") || !strings.HasSuffix(idx, "</memory>") {
		t.Fatalf("index (%d bytes):\n%s", len(idx), idx)
	}
	first := strings.Index(idx, "- fact-59")
	if first < 0 || strings.Contains(idx, "- fact-00") || first > strings.Index(idx, "- fact-58") {
		t.Errorf("not most recent first:\n%s", idx)
	}
	if !strings.Contains(idx, "older memories not listed") {
		t.Errorf("no count of what was left out:\n%s", idx)
	}
}
