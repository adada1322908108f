package skill

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

type gateFunc func(tool.Call) agent.Decision

func (f gateFunc) Gate(_ context.Context, c tool.Call) agent.Decision { return f(c) }

type runs struct {
	mu     sync.Mutex
	status []string
}

func (r *runs) RecordRun(_ tool.Call, status string, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = append(r.status, status)
}

// A skill's commands go through every gate, in order, before they run: a denial is said
// in the command's place, a rewritten input is what runs, and each run is recorded.
func TestShellRunsCommandsUnderItsGates(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	first := gateFunc(func(c tool.Call) agent.Decision {
		var in struct{ Command string }
		_ = json.Unmarshal(c.Input, &in)
		seen = append(seen, in.Command)
		switch in.Command {
		case "echo denied":
			return agent.Decision{Deny: true, Reason: "no, not that"}
		case "echo before":
			up, _ := json.Marshal(map[string]any{"command": "echo after"})
			return agent.Decision{UpdatedInput: up}
		}
		return agent.Decision{}
	})
	var second []string
	last := gateFunc(func(c tool.Call) agent.Decision {
		var in struct{ Command string }
		_ = json.Unmarshal(c.Input, &in)
		second = append(second, in.Command)
		return agent.Decision{}
	})
	rec := &runs{}
	sh := &Shell{Gates: []agent.Gate{first, last}, Runs: rec, Workspace: ws,
		Session: tools.NewBash(tools.BashConfig{Dir: dir})}
	got := sh.Expand(context.Background(), "demo", "a !`echo denied` b !`echo before` c !`exit 3` d !`pwd`")
	for _, want := range []string{"[ouro: !`echo denied` was not run: no, not that]", "b after c", "[ouro: !`exit 3` failed]", "d " + dir} {
		if !strings.Contains(got, want) {
			t.Errorf("expanded text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "before") {
		t.Errorf("the input the hook replaced ran:\n%s", got)
	}
	if strings.Join(second, ",") != "echo after,exit 3,pwd" {
		t.Errorf("the second gate judged %q, want the rewritten input and no denied command", second)
	}
	if strings.Join(rec.status, ",") != "ok,error,ok" {
		t.Errorf("runs recorded %q", rec.status)
	}
	if (*Shell)(nil).Expand(context.Background(), "x", "!`pwd`") != "!`pwd`" {
		t.Error("no shell changed the text")
	}
}
