package hook_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/hook"
)

func TestTaskCompletedBlocksAndSendsClaudeCodesFields(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	ev := hook.TaskEvent{ID: "3", Subject: "Fix it", Description: "the parser", Teammate: "w1", Team: "crew"}
	r := e.runner(on("TaskCompleted", "", e.script(`cat > "$CLAUDE_PROJECT_DIR/in.json"; echo 'tests fail' >&2; exit 2`)))
	v := r.TaskCompleted(ctx, ev)
	if !v.Block || v.Reason != "tests fail" || v.Stop {
		t.Fatalf("verdict %+v", v)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(e.read("in.json")), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": "sess-1", "transcript_path": "", "cwd": e.dir, "permission_mode": "default",
		"hook_event_name": "TaskCompleted", "task_id": "3", "task_subject": "Fix it", "task_description": "the parser",
		"teammate_name": "w1", "team_name": "crew"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("payload\n got %v\nwant %v", got, want)
	}
	// decision "block" with a reason blocks too; exit 0 lets it through; exit 1 is an error
	// that does not block.
	for body, block := range map[string]bool{
		printJSON(`{"decision":"block","reason":"no"}`): true,
		"true":               false,
		"echo x >&2; exit 1": false,
	} {
		if v := e.runner(on("TaskCompleted", "", e.script(body))).TaskCompleted(ctx, ev); v.Block != block {
			t.Errorf("hook %q: block %v, want %v", body, v.Block, block)
		}
	}
	// No hook: nothing blocks.
	if v := e.runner(nil).TaskCompleted(ctx, ev); v.Block {
		t.Fatal("blocked without a hook")
	}
}

// continue:false at TeammateIdle stops the teammate, not the session: no halt is left for
// the lead's next model call.
func TestTeammateIdleStopIsTheTeammates(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	r := e.runner(on("TeammateIdle", "", e.script(printJSON(`{"continue":false,"stopReason":"enough"}`))))
	v := r.TeammateIdle(ctx, "w1", "crew")
	if !v.Stop || v.StopReason != "enough" || !v.Block {
		t.Fatalf("verdict %+v", v)
	}
	if h := r.Halted(); h != nil {
		t.Fatalf("the teammate's stop halted the session: %v", h)
	}
	r = e.runner(on("TeammateIdle", "", e.script(`echo 'write the report' >&2; exit 2`)))
	if v := r.TeammateIdle(ctx, "w1", "crew"); !v.Block || !strings.Contains(v.Reason, "write the report") {
		t.Fatalf("verdict %+v", v)
	}
}

func TestTaskCreatedPayloadHasNoTeammateForTheLead(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("TaskCreated", "", e.script(`cat > "$CLAUDE_PROJECT_DIR/in.json"`)))
	if v := r.TaskCreated(context.Background(), hook.TaskEvent{ID: "1", Subject: "s"}); v.Block {
		t.Fatalf("verdict %+v", v)
	}
	if s := e.read("in.json"); strings.Contains(s, "teammate_name") || !strings.Contains(s, `"task_id":"1"`) {
		t.Fatalf("payload %s", s)
	}
}

// A check cut short (the session stopping) does not count as passed.
func TestTaskCompletedCancelledIsNotPassed(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("TaskCompleted", "", e.script("sleep 5")))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v := r.TaskCompleted(ctx, hook.TaskEvent{ID: "1"}); !v.Block || !strings.Contains(v.Reason, "cancelled") {
		t.Fatalf("verdict %+v", v)
	}
}
