package toolnames

import "testing"

func TestMapAndClosest(t *testing.T) {
	for name, want := range map[string]struct {
		ouro  string
		known bool
	}{
		"Bash": {"Bash", true}, "MultiEdit": {"Edit", true}, "WebSearch": {"WebSearch", true},
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

// ouro's names are the registry's (ouro.go): the tools an older hand-kept list missed are
// ouro's, and Claude Code's older names still map onto the tools that replaced them.
func TestMapReadsTheRegistry(t *testing.T) {
	for name, want := range map[string]string{
		"CronCreate": "CronCreate", "SendMessage": "SendMessage", "EnterWorktree": "EnterWorktree", "Workflow": "Workflow",
		"BashOutput": "TaskOutput", "KillShell": "TaskStop", "NotebookRead": "Read", "SlashCommand": "Skill",
	} {
		if o, k := Map(name); o != want || !k {
			t.Errorf("Map(%s) = %q, %v; want %q", name, o, k, want)
		}
	}
	for _, n := range Ouro() {
		if o, k := Map(n); !k || o == "" {
			t.Errorf("ouro's own %s maps to %q, %v", n, o, k)
		}
	}
}
