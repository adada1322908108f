package harness

import (
	"slices"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mechanism"
)

// The session's parts are assembled in phase order, read from the parts themselves: the
// guard first, compaction before notifications, the state mechanisms (whose stop seams
// end work) before the goal is judged, the lead's delegation after the mechanisms its
// subagents share, an extension after them all even when it claims the gate's phase, the MCP servers' tools
// last.
func TestSessionPartsRunInPhaseOrder(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	j := &joiner{part: mechanism.Part{Name: "test", Phase: mechanism.PhaseGate, Gates: []agent.Gate{denyAll{}}}}
	s, _ := open(t, home, cwd, []scripted.Turn{{Text: "unused"}}, func(o *Options) { o.Extensions = []mechanism.Joiner{j} })
	at := map[string]int{}
	for i, p := range s.parts {
		at[p.Name] = i
		if i > 0 && p.Phase < s.parts[i-1].Phase {
			t.Fatalf("%s (phase %d) comes after %s (phase %d)", p.Name, p.Phase, s.parts[i-1].Name, s.parts[i-1].Phase)
		}
	}
	if s.parts[0].Name != "guard" {
		t.Fatalf("the first part is %q, not the guard", s.parts[0].Name)
	}
	before := func(a, b string) {
		t.Helper()
		ia, oka := at[a]
		ib, okb := at[b]
		if !oka || !okb || ia >= ib {
			t.Errorf("%s (%d, %v) does not come before %s (%d, %v)", a, ia, oka, b, ib, okb)
		}
	}
	before("context", "notifications")
	before("tasks", "todo") // the task list is mirrored into the plan before its reminder reads it
	for _, state := range []string{"tasks", "todo", "cron", "background"} {
		before(state, "goal")
	}
	before("goal", "structured-output") // a goal's judge sends back before the answer's format is asked for
	before("structured-output", "needs-input")
	before("goal", "subagents")
	before("subagents", "test")
	if got := s.parts[at["test"]].Phase; got != mechanism.PhaseExtension {
		t.Errorf("the extension runs in phase %d, not PhaseExtension", got)
	}
	before("test", "mcp") // MCP servers' tools are offered after everything else
	var names []string
	for _, p := range s.parts {
		if p.Phase < mechanism.PhaseRemote {
			names = append(names, p.Name)
		}
	}
	if slices.Index(names, "test") != len(names)-1 {
		t.Errorf("the extension is not the last of the session's own parts: %v", names)
	}
}
