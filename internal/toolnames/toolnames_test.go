package toolnames

import "testing"

func TestMapAndClosest(t *testing.T) {
	for name, want := range map[string]struct {
		ouro  string
		known bool
	}{
		"Bash": {"Bash", true}, "MultiEdit": {"Edit", true}, "WebSearch": {"", true},
		"mcp__gh__issue": {"", true}, "Bassh": {"", false},
		// Claude Code tools real agents name (izteam, issue 13): known, not available.
		"LSP": {"", true}, "EnterPlanMode": {"", true},
	} {
		if o, k := Map(name); o != want.ouro || k != want.known {
			t.Errorf("Map(%s) = %q, %v", name, o, k)
		}
	}
	for typo, want := range map[string]string{"Bassh": "Bash", "bash": "Bash", "Raed": "Read", "WebFetc": "WebFetch", "Frobnicate": "", "Xy": ""} {
		if got := Closest(typo); got != want {
			t.Errorf("Closest(%s) = %q, want %q", typo, got, want)
		}
	}
}
