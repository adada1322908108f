package mechanism

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/tool"
)

// named is a gate that records its name when it decides.
type named struct {
	name string
	log  *[]string
}

func (g named) Gate(context.Context, tool.Call) agent.Decision {
	*g.log = append(*g.log, g.name)
	return agent.Decision{}
}

// Parts joined in any order run their seams in phase order; parts of one phase keep
// the order they joined in.
func TestOrderRunsSeamsByPhase(t *testing.T) {
	var log []string
	part := func(name string, ph Phase) Part {
		return Part{Name: name, Phase: ph, Gates: []agent.Gate{named{name, &log}}}
	}
	parts := []Part{part("scout", PhaseExtension), part("goal", PhaseGoal), part("tasks", PhaseState),
		part("guard", PhaseGate), part("cron", PhaseState), part("mcp", PhaseRemote), part("context", PhaseContext)}
	Order(parts)
	var cfg agent.Config
	Seams(&cfg, parts...)
	for _, g := range cfg.Gates {
		g.Gate(context.Background(), tool.Call{})
	}
	want := "guard context tasks cron goal scout mcp"
	if got := strings.Join(log, " "); got != want {
		t.Fatalf("seams ran %q, want %q", got, want)
	}
}

// The phases are in the order the session needs: the gate decides first, compaction
// has its say before notifications are added, work ends before a goal is judged, and
// what comes from outside comes after the session's own.
func TestPhasesAreInTheirOrder(t *testing.T) {
	order := []Phase{PhaseGate, PhaseTools, PhaseContext, PhaseNotify, PhasePlan, PhaseState, PhaseGoal,
		PhaseWorkspace, PhaseDelegation, PhaseExtension, PhaseRemote}
	if !slices.IsSorted(order) {
		t.Fatalf("phases out of order: %v", order)
	}
	for i := 1; i < len(order); i++ {
		if order[i] == order[i-1] {
			t.Fatalf("two phases share the value %d", order[i])
		}
	}
}

// Start runs in order, Close in the reverse, and every Close runs even when one fails.
func TestStartAndCloseOrder(t *testing.T) {
	var log []string
	part := func(name string, fail bool) Part {
		return Part{Name: name,
			Start: func() { log = append(log, "start "+name) },
			Close: func() error {
				log = append(log, "close "+name)
				if fail {
					return errors.New(name + " failed")
				}
				return nil
			}}
	}
	parts := []Part{part("a", false), {Name: "none"}, part("b", true), part("c", false)}
	Start(parts)
	err := Close(parts)
	want := "start a,start b,start c,close c,close b,close a"
	if got := strings.Join(log, ","); got != want {
		t.Fatalf("ran %q, want %q", got, want)
	}
	if err == nil || !strings.Contains(err.Error(), "b failed") {
		t.Fatalf("err = %v", err)
	}
}

type sched struct{ n int }

// Handle finds a part's value by its type; a type no part holds is not found.
func TestHandle(t *testing.T) {
	s := &sched{n: 7}
	parts := []Part{{Name: "todo", Handle: "not it"}, {Name: "cron", Handle: s}}
	if got, ok := Handle[*sched](parts); !ok || got != s {
		t.Fatalf("Handle = %v, %v", got, ok)
	}
	if _, ok := Handle[*strings.Builder](parts); ok {
		t.Fatal("found a handle no part holds")
	}
}

// With hands the joiner its configuration and the env; Entries picks the resumed
// entries of the types asked for, in order.
func TestWithAndEntries(t *testing.T) {
	env := Env{CWD: "/w", Resumed: []Entry{{Type: "cron", Data: []byte(`1`)}, {Type: "todo"}, {Type: "cron", Data: []byte(`2`)}}}
	j := With(func(e Env, n int) (Part, error) {
		var got []string
		for _, en := range e.Entries("cron") {
			got = append(got, string(en.Data))
		}
		return Part{Name: strings.Join(got, "+") + "@" + e.CWD, Phase: Phase(n)}, nil
	}, 42)
	p, err := j(env)
	if err != nil || p.Name != "1+2@/w" || p.Phase != 42 {
		t.Fatalf("part = %+v, err = %v", p, err)
	}
}
