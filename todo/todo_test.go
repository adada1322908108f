package todo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/tool"
)

// noop is a read-only tool standing for "other work" in a tool round.
type noop struct{}

func (noop) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Noop", Description: "does nothing", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (noop) ReadOnly() bool { return true }
func (noop) Run(context.Context, *tool.Exec) (tool.Result, error) {
	return tool.Text("ok"), nil
}

func todos(items ...Item) json.RawMessage {
	b, err := json.Marshal(map[string]any{"todos": items})
	if err != nil {
		panic(err)
	}
	return b
}

var (
	a = Item{Content: "Read the code", ActiveForm: "Reading the code"}
	b = Item{Content: "Write the fix", ActiveForm: "Writing the fix"}
	c = Item{Content: "Run the tests", ActiveForm: "Running the tests"}
)

func st(it Item, s Status) Item { it.Status = s; return it }

func write(items ...Item) scripted.Turn {
	return scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: ToolName, Input: todos(items...)}}}
}

func work() scripted.Turn {
	return scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Noop"}}}
}

type harness struct {
	list     *List
	rem      *Reminder
	model    *scripted.Provider
	conv     *agent.Conversation
	out      agent.Outcome
	changes  [][]Item
	toolEnds []agent.Event
}

func runScript(t *testing.T, turns ...scripted.Turn) *harness {
	t.Helper()
	h := &harness{list: NewList(), conv: &agent.Conversation{}}
	h.rem = NewReminder(h.list, 0)
	h.model = scripted.New(&scripted.Script{Turns: turns})
	reg := tool.NewRegistry(NewTool(h.list, func(items []Item) { h.changes = append(h.changes, items) }), noop{})
	ag, err := agent.New(agent.Config{
		Provider: h.model, Model: llm.DefaultModel, Tools: reg,
		BeforeModel: []agent.BeforeModel{h.rem},
		Observers: []agent.Observer{h.rem.Observe, func(e agent.Event) {
			if e.Type == agent.EventToolEnd {
				h.toolEnds = append(h.toolEnds, e)
			}
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	h.out = ag.Run(context.Background(), h.conv, llm.TextBlock("fix the bug"))
	if h.out.Status != agent.StatusCompleted {
		t.Fatalf("run ended %s: %s", h.out.Status, h.out.Reason)
	}
	return h
}

func lastText(req llm.Request) string {
	m := req.Messages[len(req.Messages)-1]
	var sb strings.Builder
	for _, bl := range m.Content {
		switch bl.Type {
		case llm.BlockText:
			sb.WriteString(bl.Text + "\n")
		case llm.BlockToolResult:
			sb.WriteString(bl.ResultText() + "\n")
		}
	}
	return sb.String()
}

// reminded lists the indexes of the requests that carried a reminder.
func reminded(reqs []llm.Request) []int {
	var out []int
	for i, r := range reqs {
		if strings.Contains(lastText(r), "has not been updated") {
			out = append(out, i)
		}
	}
	return out
}

func TestCreateUpdateComplete(t *testing.T) {
	h := runScript(t,
		write(st(a, InProgress), st(b, Pending), st(c, Pending)),
		write(st(a, Completed), st(b, InProgress), st(c, Pending)),
		write(st(a, Completed), st(b, Completed), st(c, InProgress)),
		write(st(a, Completed), st(b, Completed), st(c, Completed)),
		scripted.Turn{Text: "done"},
	)
	if len(h.changes) != 4 {
		t.Fatalf("onChange called %d times, want 4", len(h.changes))
	}
	if h.list.Open() != 0 || len(h.list.Items()) != 3 {
		t.Fatalf("final list: %+v", h.list.Items())
	}
	for _, e := range h.toolEnds {
		if e.Result.IsError {
			t.Fatalf("TodoWrite failed: %s", e.Result.ResultText())
		}
	}
	first := h.toolEnds[0].Result.ResultText()
	if !strings.HasPrefix(first, ResultText) {
		t.Fatalf("result should open with Claude Code's text: %q", first)
	}
	want := "◐ Reading the code…\n☐ Write the fix\n☐ Run the tests"
	if !strings.Contains(first, want) {
		t.Fatalf("result should carry the checklist %q: %q", want, first)
	}
	if got := h.list.Render(); got != "☑ Read the code\n☑ Write the fix\n☑ Run the tests" {
		t.Fatalf("render: %q", got)
	}
	if r := reminded(h.model.Requests()); len(r) != 0 {
		t.Fatalf("no reminder expected while the list is updated every round, got %v", r)
	}
}

func TestReminderAfterIdleRounds(t *testing.T) {
	h := runScript(t,
		write(st(a, InProgress), st(b, Pending)), // request 0 → list set
		work(),                                   // request 1: rounds 0
		work(),                                   // request 2: 1
		work(),                                   // request 3: 2 → after it, 3 idle rounds
		work(),                                   // request 4: reminder here
		work(),                                   // request 5: 1
		work(),                                   // request 6: 2
		write(st(a, Completed), st(b, InProgress)), // request 7: 3 → reminder, then update
		work(),                      // request 8: 0 (just updated)
		work(),                      // request 9
		work(),                      // request 10
		scripted.Turn{Text: "done"}, // request 11: reminder again (3 idle rounds)
	)
	reqs := h.model.Requests()
	got := reminded(reqs)
	if fmt.Sprint(got) != "[4 7 11]" {
		t.Fatalf("reminders in requests %v, want [4 7 11]", got)
	}
	text := lastText(reqs[4])
	for _, w := range []string{"<system-reminder>", "3 tool rounds", `"Read the code" (in progress)`, `"Write the fix"`, "TodoWrite"} {
		if !strings.Contains(text, w) {
			t.Fatalf("reminder should mention %q: %s", w, text)
		}
	}
	// It rides along with the tool results of that request, after them.
	last := reqs[4].Messages[len(reqs[4].Messages)-1]
	if last.Role != llm.RoleUser || last.Content[0].Type != llm.BlockToolResult || last.Content[len(last.Content)-1].Type != llm.BlockText {
		t.Fatalf("reminder should follow the tool results in the same user message: %+v", last)
	}
	// History is never edited.
	for _, m := range h.conv.Messages {
		if strings.Contains(fmt.Sprint(m.Content), "system-reminder") {
			t.Fatalf("the reminder leaked into the conversation: %+v", m)
		}
	}
	if h.rem.Sent() != 3 {
		t.Fatalf("Sent = %d", h.rem.Sent())
	}
}

func TestNoReminderWhenEmptyOrComplete(t *testing.T) {
	h := runScript(t, work(), work(), work(), work(), work(), scripted.Turn{Text: "done"})
	if r := reminded(h.model.Requests()); len(r) != 0 {
		t.Fatalf("empty list: reminders at %v", r)
	}
	h = runScript(t,
		write(st(a, Completed), st(b, Completed)),
		work(), work(), work(), work(), work(), work(),
		scripted.Turn{Text: "done"},
	)
	if r := reminded(h.model.Requests()); len(r) != 0 {
		t.Fatalf("completed list: reminders at %v", r)
	}
}

func TestReminderCustomEvery(t *testing.T) {
	list := NewList()
	list.Set([]Item{st(a, Pending)})
	model := scripted.New(&scripted.Script{Turns: []scripted.Turn{work(), work(), work(), {Text: "x"}}})
	rem := NewReminder(list, 1)
	ag, _ := agent.New(agent.Config{Provider: model, Model: llm.DefaultModel, Tools: tool.NewRegistry(noop{}),
		BeforeModel: []agent.BeforeModel{rem}, Observers: []agent.Observer{rem.Observer()}})
	ag.Run(context.Background(), &agent.Conversation{}, llm.TextBlock("go"))
	if r := reminded(model.Requests()); fmt.Sprint(r) != "[1 2 3]" {
		t.Fatalf("every=1: reminders at %v, want [1 2 3]", r)
	}
}

func TestValidationErrors(t *testing.T) {
	cases := []struct {
		name  string
		items []Item
		max   int
		want  []string
	}{
		{"empty content", []Item{st(a, Pending), {Content: " ", ActiveForm: "x", Status: Pending}}, 0, []string{"todos[1].content is empty"}},
		{"empty activeForm", []Item{{Content: "x", Status: Pending}}, 0, []string{"todos[0].activeForm is empty"}},
		{"bad status", []Item{{Content: "x", ActiveForm: "y", Status: "done"}}, 0, []string{`todos[0].status is "done"`, `"pending", "in_progress", "completed"`}},
		{"two in progress", []Item{st(a, InProgress), st(b, Pending), st(c, InProgress)}, 0, []string{"2 items are in_progress", `[0] "Read the code"`, `[2] "Run the tests"`}},
		{"too many", []Item{st(a, Pending), st(b, Pending), st(c, Pending)}, 2, []string{"3 items, more than the limit of 2"}},
		{"duplicate", []Item{st(a, Pending), st(b, Pending), st(a, Completed)}, 0, []string{`todos[2].content "Read the code" duplicates todos[0]`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			list := NewList()
			list.Set([]Item{st(c, Pending)})
			tl := NewToolConfig(list, ToolConfig{MaxItems: tc.max})
			res, err := tl.Run(context.Background(), tool.ExecInput(todos(tc.items...)))
			if err != nil || !res.IsError {
				t.Fatalf("want an error result, got %+v, %v", res, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text(), w) {
					t.Fatalf("error should say %q: %s", w, res.Text())
				}
			}
			if got := list.Items(); len(got) != 1 || got[0] != st(c, Pending) {
				t.Fatalf("a rejected list must leave the old one: %+v", got)
			}
		})
	}
	// Default limit is 50.
	many := make([]Item, 51)
	for i := range many {
		many[i] = Item{Content: fmt.Sprint("task ", i), ActiveForm: "doing", Status: Pending}
	}
	if err := Validate(many, 0); err == nil || !strings.Contains(err.Error(), "limit of 50") {
		t.Fatalf("51 items: %v", err)
	}
	if err := Validate(many[:50], 0); err != nil {
		t.Fatal(err)
	}
}

func TestValidationThroughRegistry(t *testing.T) {
	list := NewList()
	reg := tool.NewRegistry(NewTool(list, nil))
	for _, tc := range []struct{ in, want string }{
		{`{}`, "todos: missing"},
		{`{"todos":[{"content":"x","status":"done","activeForm":"y"}]}`, "todos.0.status"},
		{`{"todos":[{"content":"x","status":"pending"}]}`, "activeForm"},
		{`{"todos":[{"content":"x","status":"pending","activeForm":"y","priority":"high"}]}`, "priority"},
		{`{"todos":[{"content":"x","status":"in_progress","activeForm":"y"},{"content":"z","status":"in_progress","activeForm":"w"}]}`, "2 items are in_progress"},
	} {
		res := reg.Run(context.Background(), tool.Call{ID: "1", Name: ToolName, Input: json.RawMessage(tc.in)})
		if !res.IsError || !strings.Contains(res.Text(), tc.want) {
			t.Fatalf("%s: want error mentioning %q, got %q", tc.in, tc.want, res.Text())
		}
	}
	res := reg.Run(context.Background(), tool.Call{ID: "2", Name: ToolName, Input: json.RawMessage(`{"todos":[]}`)})
	if res.IsError || !res.ChangedState || !strings.Contains(res.Text(), "(no todos)") {
		t.Fatalf("an empty list clears: %+v", res)
	}
	tl, _ := reg.Get(ToolName)
	if !tl.ReadOnly() {
		t.Fatal("TodoWrite changes only session state; it should be ReadOnly")
	}
}

func TestRestoreRoundTrip(t *testing.T) {
	l := NewList()
	l.Set([]Item{st(a, Completed), st(b, InProgress), st(c, Pending)})
	data, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"activeForm":"Writing the fix"`) || !strings.HasPrefix(string(data), `{"todos":[`) {
		t.Fatalf("JSON: %s", data)
	}
	r := NewList()
	if err := r.Restore(data); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.Items()) != fmt.Sprint(l.Items()) || r.Render() != l.Render() || r.Open() != 2 {
		t.Fatalf("restored %+v, want %+v", r.Items(), l.Items())
	}
	// A bare array works too, and a struct field decodes.
	var holder struct{ Todos *List }
	holder.Todos = NewList()
	if err := json.Unmarshal([]byte(`{"Todos":[{"content":"x","status":"pending","activeForm":"y"}]}`), &holder); err != nil || holder.Todos.Open() != 1 {
		t.Fatalf("bare array: %v %+v", err, holder.Todos.Items())
	}
	// Corrupt data leaves the list as it was.
	if err := r.Restore([]byte(`{"todos":[{"content":"x","status":"bogus","activeForm":"y"}]}`)); err == nil {
		t.Fatal("want an error for a bad status")
	}
	if err := r.Restore([]byte(`not json`)); err == nil {
		t.Fatal("want an error for bad JSON")
	}
	if r.Open() != 2 {
		t.Fatalf("failed restore changed the list: %+v", r.Items())
	}
	empty, _ := json.Marshal(NewList())
	if string(empty) != `{"todos":[]}` {
		t.Fatalf("empty: %s", empty)
	}
	if NewList().Snapshot() != "" || !strings.Contains(l.Snapshot(), "◐ Writing the fix…") {
		t.Fatalf("snapshot: %q", l.Snapshot())
	}
}

func TestRestoreResetsReminder(t *testing.T) {
	list := NewList()
	rem := NewReminder(list, 2)
	// Two idle tool rounds with an empty list, then a restore: no reminder right after.
	for range 2 {
		rem.Observe(agent.Event{Type: agent.EventMessage, Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUseBlock("1", "Noop", json.RawMessage(`{}`))}}})
		rem.Observe(agent.Event{Type: agent.EventTurnEnd})
	}
	if err := list.Restore(todos(st(a, Pending))); err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}
	turn := &agent.Turn{Req: req, Conv: &agent.Conversation{Messages: req.Messages}}
	if err := rem.BeforeModel(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	if rem.Sent() != 0 {
		t.Fatal("no reminder right after the list changed")
	}
}

func TestConcurrentUse(t *testing.T) {
	list := NewList()
	tl := NewTool(list, nil)
	rem := NewReminder(list, 1)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				items := []Item{{Content: fmt.Sprint("task ", i), ActiveForm: "doing", Status: InProgress}, {Content: fmt.Sprint("next ", j), ActiveForm: "x", Status: Pending}}
				if res, _ := tl.Run(context.Background(), tool.ExecInput(todos(items...))); res.IsError {
					t.Error(res.Text())
					return
				}
				_ = list.Render()
				_ = list.Open()
				data, _ := json.Marshal(list)
				if err := NewList().Restore(data); err != nil {
					t.Error(err)
				}
				rem.Observe(agent.Event{Type: agent.EventTurnEnd})
				req := &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}
				_ = rem.BeforeModel(context.Background(), &agent.Turn{Req: req, Conv: &agent.Conversation{Messages: req.Messages}})
			}
		}()
	}
	wg.Wait()
	if n := len(list.Items()); n != 2 {
		t.Fatalf("list has %d items", n)
	}
}
