package task_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/task"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func board(s task.Store, holder string, c *clock) *task.Board {
	return task.NewBoard(task.Config{Store: s, List: "l", Holder: holder, Lease: time.Minute, Now: c.now})
}

func ptr[T any](v T) *T { return &v }

func mustCreate(t *testing.T, b *task.Board, n int) {
	t.Helper()
	for i := range n {
		if _, err := b.Create(context.Background(), "task "+string(rune('A'+i)), "", "", nil); err != nil {
			t.Fatal(err)
		}
	}
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not say %q", err, p)
		}
	}
}

func TestDependencies(t *testing.T) {
	ctx := context.Background()
	c := &clock{time.Unix(1e9, 0)}
	b := board(task.NewMemStore(), "me", c)
	mustCreate(t, b, 4)
	_, err := b.Update(ctx, "1", task.Update{AddBlockedBy: []string{"1"}})
	wantErr(t, err, "#1 cannot block itself")
	_, err = b.Update(ctx, "1", task.Update{AddBlocks: []string{"9"}})
	wantErr(t, err, "no task #9", "#1, #2, #3, #4")
	_, err = b.Update(ctx, "1", task.Update{AddBlocks: []string{"../2"}})
	wantErr(t, err, `"../2" is not a task id`)
	if _, err := b.Update(ctx, "2", task.Update{AddBlockedBy: []string{"1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, "#2", task.Update{AddBlocks: []string{"3"}}); err != nil {
		t.Fatal(err)
	}
	_, err = b.Update(ctx, "1", task.Update{AddBlockedBy: []string{"3"}})
	wantErr(t, err, "cycle: #1 → #2 → #3 → #1")
	one, _ := b.Get(ctx, "1")
	two, _ := b.Get(ctx, "2")
	if strings.Join(one.Blocks, ",") != "2" || strings.Join(two.BlockedBy, ",") != "1" || strings.Join(two.Blocks, ",") != "3" {
		t.Fatalf("links are not symmetric: #1 %+v, #2 %+v", one, two)
	}
	// A refused update writes nothing.
	if three, _ := b.Get(ctx, "3"); len(three.Blocks) != 0 {
		t.Fatalf("the refused cycle left #3 blocking %v", three.Blocks)
	}
	// Claiming or starting a blocked task is refused, naming the blockers.
	_, err = b.Update(ctx, "3", task.Update{Owner: ptr("me")})
	wantErr(t, err, "#3 is blocked by #2 (pending)")
	_, err = b.Update(ctx, "2", task.Update{Status: ptr(task.InProgress)})
	wantErr(t, err, "#2 is blocked by #1 (pending)")
	// Completing #1 unblocks #2 (not #3, still behind #2).
	out, err := b.Update(ctx, "1", task.Update{Status: ptr(task.Completed)})
	if err != nil || len(out.Unblocked) != 1 || out.Unblocked[0].ID != "2" {
		t.Fatalf("completing #1: %+v, %v", out, err)
	}
	if _, err := b.Update(ctx, "2", task.Update{Owner: ptr("me"), Status: ptr(task.InProgress)}); err != nil {
		t.Fatal(err)
	}
	// Deleting #2 unlinks it: #3 is free.
	if out, err := b.Update(ctx, "2", task.Update{Status: ptr(task.Deleted)}); err != nil || !out.Deleted {
		t.Fatalf("delete: %+v %v", out, err)
	}
	three, _ := b.Get(ctx, "3")
	one, _ = b.Get(ctx, "1")
	if len(three.BlockedBy) != 0 || len(one.Blocks) != 0 {
		t.Fatalf("delete left links: #1 %v #3 %v", one.Blocks, three.BlockedBy)
	}
	if _, err := b.Get(ctx, "2"); err == nil {
		t.Fatal("#2 is still there")
	}
	if _, err := b.Update(ctx, "3", task.Update{Owner: ptr("me")}); err != nil {
		t.Fatal(err)
	}
	if c, _ := b.Create(ctx, "next", "", "", nil); c.ID != "5" {
		t.Fatalf("after deleting #2 the next id is %s, want 5", c.ID)
	}
}

func TestOwnership(t *testing.T) {
	ctx := context.Background()
	c := &clock{time.Unix(1e9, 0)}
	s := task.NewMemStore()
	a, b := board(s, "session-a", c), board(s, "session-b", c)
	mustCreate(t, a, 2)
	if _, err := a.Update(ctx, "1", task.Update{Owner: ptr("alice")}); err != nil {
		t.Fatal(err)
	}
	_, err := b.Update(ctx, "1", task.Update{Owner: ptr("bob")})
	wantErr(t, err, `#1 is already claimed by "alice"`)
	_, err = b.Update(ctx, "1", task.Update{Status: ptr(task.Completed)})
	wantErr(t, err, `claimed by "alice" in another session; only its owner can complete it`)
	_, err = b.Update(ctx, "1", task.Update{Owner: ptr("")})
	wantErr(t, err, "only its owner can release it")
	_, err = b.Update(ctx, "1", task.Update{Status: ptr(task.Deleted)})
	wantErr(t, err, "only its owner can delete it")
	// An unowned task anyone completes.
	if _, err := b.Update(ctx, "2", task.Update{Status: ptr(task.Completed)}); err != nil {
		t.Fatal(err)
	}
	_, err = b.Update(ctx, "2", task.Update{Owner: ptr("bob")})
	wantErr(t, err, "already completed")
	// The owner completes its own.
	if _, err := a.Update(ctx, "1", task.Update{Status: ptr(task.Completed)}); err != nil {
		t.Fatal(err)
	}
}

func TestLeaseLapses(t *testing.T) {
	ctx := context.Background()
	c := &clock{time.Unix(1e9, 0)}
	s := task.NewMemStore()
	dead, live := board(s, "dead", c), board(s, "live", c)
	mustCreate(t, dead, 2)
	dead.Update(ctx, "1", task.Update{Owner: ptr("w1"), Status: ptr(task.InProgress)})
	live.Update(ctx, "2", task.Update{Owner: ptr("w2")})
	c.t = c.t.Add(50 * time.Second)
	if n, err := live.Renew(ctx); n != 1 || err != nil {
		t.Fatalf("Renew: %d, %v", n, err)
	}
	c.t = c.t.Add(20 * time.Second) // #1's lease ran out; #2's was renewed
	_, err := dead.Update(ctx, "2", task.Update{Owner: ptr("other")})
	wantErr(t, err, "already claimed")
	all, err := live.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if all[0].Owner != "" || all[0].Status != task.Pending || !strings.Contains(all[0].Note, `claim by "w1" lapsed`) {
		t.Fatalf("#1 after its lease ran out: %+v", all[0])
	}
	if all[1].Owner != "w2" {
		t.Fatalf("#2 lost its renewed claim: %+v", all[1])
	}
	if _, err := live.Update(ctx, "1", task.Update{Owner: ptr("w2")}); err != nil {
		t.Fatalf("claiming a lapsed task: %v", err)
	}
}

func TestMetadata(t *testing.T) {
	ctx := context.Background()
	c := &clock{time.Unix(1e9, 0)}
	b := board(task.NewMemStore(), "me", c)
	if _, err := b.Create(ctx, "x", "", "", map[string]json.RawMessage{"a": json.RawMessage(`1`), "gone": json.RawMessage(`null`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, "1", task.Update{Metadata: map[string]json.RawMessage{"b": json.RawMessage(`"two"`), "a": json.RawMessage(`null`)}}); err != nil {
		t.Fatal(err)
	}
	got, _ := b.Get(ctx, "1")
	if len(got.Metadata) != 1 || string(got.Metadata["b"]) != `"two"` {
		t.Fatalf("metadata %v", got.Metadata)
	}
	huge := json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)
	_, err := b.Update(ctx, "1", task.Update{Metadata: map[string]json.RawMessage{"huge": huge}})
	wantErr(t, err, "metadata would be", "at most 16384 bytes")
	_, err = b.Create(ctx, strings.Repeat("s", 10000), "", "", nil)
	wantErr(t, err, "subject is 10000 bytes")
	_, err = b.Create(ctx, "  ", "", "", nil)
	wantErr(t, err, "subject is empty")
	_, err = b.Get(ctx, "abc")
	wantErr(t, err, `"abc" is not a task id`)
	_, err = b.Get(ctx, "42")
	wantErr(t, err, "no task #42")
	_, err = b.Update(ctx, "1", task.Update{Status: ptr(task.Status("done"))})
	wantErr(t, err, `status "done" is not one of`)
}

func TestListNames(t *testing.T) {
	for _, bad := range []string{"", "../x", "a/b", ".hidden", strings.Repeat("n", 200), "a b"} {
		if task.ValidListName(bad) == nil {
			t.Errorf("list name %q accepted", bad)
		}
	}
	for _, good := range []string{"team-1", "0e9a5a3c-1f7e-4a51-9d1b-0c1f2b3c4d5e", "my_list.v2"} {
		if err := task.ValidListName(good); err != nil {
			t.Errorf("list name %q refused: %v", good, err)
		}
	}
}

// A completed task is held by nobody: anyone may reopen or delete it.
func TestCompletedTaskIsFree(t *testing.T) {
	ctx := context.Background()
	c := &clock{time.Unix(1e9, 0)}
	s := task.NewMemStore()
	a, b := board(s, "a", c), board(s, "b", c)
	mustCreate(t, a, 2)
	a.Update(ctx, "1", task.Update{Owner: ptr("alice")})
	if _, err := a.Update(ctx, "1", task.Update{Status: ptr(task.Completed)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, "1", task.Update{Status: ptr(task.Deleted)}); err != nil {
		t.Fatalf("deleting a completed task: %v", err)
	}
}
