package hook_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/hook"
)

func TestWorktreeCreateReplacesGit(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	made := e.path("made")
	r := e.runner(on("WorktreeCreate", "", e.script(`cat > "$CLAUDE_PROJECT_DIR/in.json"; mkdir -p `+made+`; echo progress >&2; echo `+made)))
	path, handled, err := r.WorktreeCreate(ctx, "feature-x")
	if err != nil || !handled || path != made {
		t.Fatalf("WorktreeCreate = %q %v %v", path, handled, err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(e.read("in.json")), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": "sess-1", "transcript_path": "", "cwd": e.dir, "permission_mode": "default",
		"hook_event_name": "WorktreeCreate", "name": "feature-x"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("payload\n got %v\nwant %v", got, want)
	}

	// JSON output with hookSpecificOutput.worktreePath answers too.
	r = e.runner(on("WorktreeCreate", "", e.script(printJSON(`{"hookSpecificOutput":{"hookEventName":"WorktreeCreate","worktreePath":"/srv/wt/a"}}`))))
	if path, _, err := r.WorktreeCreate(ctx, "a"); err != nil || path != "/srv/wt/a" {
		t.Fatalf("JSON answer: %q %v", path, err)
	}

	// No hook: git makes it.
	if _, handled, _ := e.runner(nil).WorktreeCreate(ctx, "a"); handled {
		t.Fatal("handled without a hook")
	}
}

func TestWorktreeCreateFailures(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	for body, want := range map[string]string{
		"echo disk full >&2; exit 1":         "disk full",
		"echo no >&2; exit 2":                "no",
		"true":                               "printed the path",
		"echo /a; echo /b":                   "several lines",
		printJSON(`{"continue": false}`):     "stopped it",
		printJSON(`{"decision":"nonsense"}`): "invalid hook output",
	} {
		r := e.runner(on("WorktreeCreate", "", e.script(body)))
		_, handled, err := r.WorktreeCreate(ctx, "a")
		if !handled || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("hook %q: handled %v err %v, want %q", body, handled, err, want)
		}
	}
	r := e.runner(on("WorktreeCreate", "", e.script("echo /a"), e.script("echo /b")))
	if _, _, err := r.WorktreeCreate(ctx, "a"); err == nil || !strings.Contains(err.Error(), "different folders") {
		t.Errorf("two paths: %v", err)
	}
}

func TestWorktreeRemoveFires(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("WorktreeRemove", "", e.script(`cat > "$CLAUDE_PROJECT_DIR/in.json"; exit 2`)))
	r.WorktreeRemove(context.Background(), "/repo/.ouro/worktrees/a")
	var got map[string]any
	if err := json.Unmarshal([]byte(e.read("in.json")), &got); err != nil {
		t.Fatal(err)
	}
	if got["hook_event_name"] != "WorktreeRemove" || got["worktree_path"] != "/repo/.ouro/worktrees/a" {
		t.Fatalf("payload %v", got)
	}
	if _, err := os.Stat(e.path("in.json")); err != nil {
		t.Fatal(err)
	}
	_ = hook.WorktreeRemove
}

func TestPayloadCWDFollowsTheSession(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("Notification", "", e.script(`cat > "$CLAUDE_PROJECT_DIR/in.json"`)))
	r.SetCWD("/repo/.ouro/worktrees/a")
	r.Notification(context.Background(), "hi")
	var got map[string]any
	if err := json.Unmarshal([]byte(e.read("in.json")), &got); err != nil || got["cwd"] != "/repo/.ouro/worktrees/a" {
		t.Fatalf("payload %v %v", got, err)
	}
	scoped, _, err := r.Scoped(nil)
	if err != nil {
		t.Fatal(err)
	}
	r.SetCWD(e.dir)
	scoped.Notification(context.Background(), "again")
	if err := json.Unmarshal([]byte(e.read("in.json")), &got); err != nil || got["cwd"] != e.dir {
		t.Fatalf("a scoped runner's payload %v %v", got, err)
	}
}
