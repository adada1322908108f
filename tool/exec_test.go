package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// strict is a tool with a schema, that records the Exec it got.
type strict struct {
	got  *tool.Exec
	runs int
}

func (s *strict) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Strict", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}
}
func (s *strict) ReadOnly() bool { return true }
func (s *strict) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	s.runs++
	s.got = x
	x.Notify("note from " + x.ID)
	return tool.Text("ok"), nil
}

// Nothing reaches a tool through a registry without passing its schema: the zero Valid
// and a Valid made by another registry are checked again by the one that runs them.
func TestRunValidCannotBeBypassed(t *testing.T) {
	s := &strict{}
	r := tool.NewRegistry(s)
	if res := r.RunValid(context.Background(), tool.Valid{}, nil); !res.IsError || !strings.HasPrefix(res.Text(), "Unknown tool") || s.runs != 0 {
		t.Fatalf("zero Valid ran: %+v", res)
	}
	// Another registry with a laxer tool of the same name made this Valid.
	lax := tool.NewRegistry(&fake{name: "Strict"})
	v, _, ok := lax.Check(tool.Call{ID: "toolu_9", Name: "Strict", Input: json.RawMessage(`{}`)})
	if !ok {
		t.Fatal("the lax registry refused {}")
	}
	if res := r.RunValid(context.Background(), v, nil); !res.IsError || !strings.Contains(res.Text(), "Invalid input for Strict") || s.runs != 0 {
		t.Fatalf("a foreign Valid ran unchecked: %+v", res)
	}
	if _, bad, ok := r.Check(tool.Call{Name: "Strict", Input: json.RawMessage(`{"n":"x"}`)}); ok || !bad.IsError {
		t.Fatalf("Check passed bad input: %+v", bad)
	}
}

// A run gets its call (id, name, the checked input), progress goes to the caller with the
// call it belongs to, and Notify reaches the session's sink.
func TestExecCarriesTheCall(t *testing.T) {
	s := &strict{}
	var notes []tool.Notification
	r := tool.NewRegistry(s)
	r.SetOptions(tool.Options{Notify: tool.NotifierFunc(func(n tool.Notification) { notes = append(notes, n) })})
	v, bad, ok := r.Check(tool.Call{ID: "toolu_7", Name: "Strict", Input: json.RawMessage(`{"n":3}`)})
	if !ok {
		t.Fatal(bad.Text())
	}
	if v.Call().ID != "toolu_7" || !v.ReadOnly() || v.Tool() != tool.Tool(s) {
		t.Fatalf("Valid = %+v", v.Call())
	}
	var progress []string
	res := r.RunValid(context.Background(), v, func(c tool.Call, p tool.Progress) { progress = append(progress, c.ID+":"+p.Message) })
	if res.IsError || s.got.ID != "toolu_7" || s.got.Name != "Strict" || string(s.got.Input) != `{"n":3}` {
		t.Fatalf("result %+v, exec %+v", res, s.got)
	}
	s.got.Progress(tool.Progress{Message: "late"}) // after the run: dropped
	if len(progress) != 0 {
		t.Errorf("progress after the run reached the caller: %v", progress)
	}
	if len(notes) != 1 || notes[0].Text != "note from toolu_7" || notes[0].From.ID != "toolu_7" {
		t.Errorf("notifications = %+v", notes)
	}
	// Run directly, a tool has no sink: Notify says so instead of pretending.
	x := tool.ExecInput(json.RawMessage(`{"n":1}`))
	if x.Notify("nobody") {
		t.Error("Notify without a sink reported delivery")
	}
}
