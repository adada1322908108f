package notify_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/notify"
	"github.com/ouroagent/ouro/tool"
)

// starter is a tool that leaves a notification behind, as a background job would.
type starter struct{}

func (starter) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Start", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (starter) ReadOnly() bool { return false }
func (starter) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	x.Notify("<task-notification>job of " + x.ID + " finished</task-notification>")
	return tool.Text("started"), nil
}

// A notification reaches the model in the next request, after the tool results, exactly
// once, and stays in the conversation.
func TestNotificationReachesTheNextRequestOnce(t *testing.T) {
	q := &notify.Queue{}
	var shown []string
	var mu sync.Mutex
	q.OnNotify = func(n tool.Notification) { mu.Lock(); shown = append(shown, n.From.ID); mu.Unlock() }
	reg := tool.NewRegistry(starter{})
	reg.SetOptions(tool.Options{Notify: q})
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Start", Input: json.RawMessage(`{}`)}}},
		{ExpectContains: "job of toolu_01_01 finished", Text: "noted"},
		{Text: "bye"},
	}})
	a, err := agent.New(agent.Config{Provider: prov, Model: "scripted", Tools: reg, BeforeModel: []agent.BeforeModel{q}})
	if err != nil {
		t.Fatal(err)
	}
	conv := &agent.Conversation{}
	if out := a.Run(context.Background(), conv, llm.TextBlock("go")); !out.OK() {
		t.Fatalf("outcome %+v", out)
	}
	if out := a.Run(context.Background(), conv, llm.TextBlock("more")); !out.OK() {
		t.Fatalf("outcome %+v", out)
	}
	if err := llm.ValidateConversation(conv.Messages); err != nil {
		t.Fatal(err)
	}
	n := strings.Count(llm.RenderMessages(conv.Messages, 0), "job of toolu_01_01 finished")
	if n != 1 || q.Pending() != 0 {
		t.Errorf("the notification is in the conversation %d times (want 1), %d pending", n, q.Pending())
	}
	if len(shown) != 1 || shown[0] != "toolu_01_01" {
		t.Errorf("OnNotify saw %v", shown)
	}
}

// Notifications from many goroutines are all delivered, none twice.
func TestConcurrentNotifications(t *testing.T) {
	q := &notify.Queue{}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); q.Notify(tool.Notification{Text: "n" + string(rune('A'+i%26))}) }()
	}
	wg.Wait()
	q.Notify(tool.Notification{}) // empty: ignored
	conv := &agent.Conversation{Messages: []llm.Message{llm.UserText("hi")}}
	turn := &agent.Turn{Number: 1, Conv: conv, Req: &llm.Request{Messages: conv.Messages}}
	if err := q.BeforeModel(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	if len(conv.Messages) != 2 || len(conv.Messages[1].Content) != 50 || len(turn.Req.Messages) != 2 {
		t.Fatalf("delivered %d messages, %d blocks", len(conv.Messages), len(conv.Messages[len(conv.Messages)-1].Content))
	}
	_ = q.BeforeModel(context.Background(), turn)
	if len(conv.Messages) != 2 {
		t.Error("delivered twice")
	}
}
