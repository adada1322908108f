// s13: one agent becomes a team. The lead starts named teammates with Agent
// (run_in_background and a name): each is a goroutine running its own loop on its own
// conversation, built from its agent definition. Agents talk only through SendMessage;
// a message waits in the recipient's mailbox (mailbox.Store) and joins its next request
// exactly once. Teammates share the lead's task list: an idle teammate claims the
// lowest-numbered ready task, completes it and tells the lead what that unblocked. The
// lead's BeforeStop seam (team.LeadWaiter) holds it while the team works, then wakes it
// with the reports. Shutdown is a request with an id: the teammate finishes its current
// tool call, acknowledges and stops.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s13_teams "plan three parts and have a team write them"
//
// Without a key it plays scripted models: the lead plans three tasks (the tests wait for
// the parser), starts alice and bob, waits, reads their reports and shuts them down.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
)

func main() {
	tasks, mail := task.NewMemStore(), mailbox.NewMemStore()
	board := task.NewBoard(task.Config{Store: tasks, List: "demo", Holder: "lead"})
	registry := tool.NewRegistry(task.NewTools(task.NewLazy(func() (*task.Board, error) { return board, nil }))...)

	var model llm.Provider = newScripted()
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}
	agents, alias := subagent.NewTool(subagent.Config{Provider: model, Model: llm.DefaultModel, Tools: registry})
	t := team.New(team.Config{Name: "demo", Holder: "lead", Agents: agents, Poll: 20 * time.Millisecond,
		Open: func() (mailbox.Store, task.Store, time.Duration, error) { return mail, tasks, time.Minute, nil }})
	agents.SetSpawner(t)
	_ = registry.Add(alias)
	_ = registry.Add(t.NewSendTool())

	a, err := agent.New(agent.Config{
		Provider: model, Model: llm.DefaultModel, Tools: registry,
		BeforeModel: []agent.BeforeModel{t.LeadInbox()},
		BeforeStop:  []agent.BeforeStop{t.LeadWaiter(time.Minute)},
		Observers: []agent.Observer{func(e agent.Event) {
			switch {
			case e.Type == agent.EventToolEnd:
				fmt.Printf("── lead: %s %s\n%s\n", e.Call.Name, e.Call.Input, indent(firstLine(e.Result.ResultText())))
			case e.Type == agent.EventMessage && e.Message.Role == llm.RoleUser && strings.Contains(e.Message.Text(), "<teammate-message"):
				fmt.Printf("── messages for the lead, in its next request:\n%s\n", indent(e.Message.Text()))
			}
		}},
	})
	if err != nil {
		panic(err)
	}
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "Plan the parser, its tests and its docs, and have a team of two write them."
	}
	out := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock(prompt))
	fmt.Printf("%s\n[%s after %d turns]\n", out.Result, out.Status, out.Turns)
	t.Close()
	all, _ := board.All(context.Background())
	fmt.Println("── the task list:\n" + indent(task.Lines(all)))
	fmt.Println("── ouro team:\n" + indent(team.Render(t.Snapshot())))
}

func indent(s string) string { return "   " + strings.ReplaceAll(s, "\n", "\n   ") }

func firstLine(s string) string { s, _, _ = strings.Cut(s, "\n"); return s }

// scriptedTeam routes each request to a script: a teammate's to the script of the task
// it last claimed (which teammate takes which task is a race), else to its own; the
// lead's to the lead's.
type scriptedTeam struct {
	mu     sync.Mutex
	lead   *scripted.Provider
	byTask map[string]*scripted.Provider
	byName map[string]*scripted.Provider
}

var (
	claimRE = regexp.MustCompile(`You claimed task #(\d+)`)
	nameRE  = regexp.MustCompile(`You are teammate "([^"]+)"`)
)

func (s *scriptedTeam) Name() string { return "scripted" }

func (s *scriptedTeam) Complete(ctx context.Context, req *llm.Request, on llm.StreamFunc) (*llm.Response, error) {
	s.mu.Lock()
	p := s.lead
	if sm := nameRE.FindStringSubmatch(req.System); sm != nil {
		p = s.byName[sm[1]]
		for _, m := range req.Messages {
			for _, b := range m.Content {
				if c := claimRE.FindAllStringSubmatch(b.Text, -1); c != nil && m.Role == llm.RoleUser {
					if tp := s.byTask[c[len(c)-1][1]]; tp != nil && tp.Remaining() > 0 {
						p = tp
					} else {
						p = s.byName[sm[1]]
					}
				}
			}
		}
	}
	s.mu.Unlock()
	// Teammates start once the lead waits for them, so their reports reach it then.
	for p != s.lead && len(s.lead.Requests()) < 4 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	return p.Complete(ctx, req, on)
}

func call(id, name string, in any) scripted.ToolCall {
	b, _ := json.Marshal(in)
	return scripted.ToolCall{ID: id, Name: name, Input: b}
}

func newScripted() *scriptedTeam {
	s := &scriptedTeam{byTask: map[string]*scripted.Provider{}, byName: map[string]*scripted.Provider{}}
	subjects := []string{"Write the parser", "Write the parser's tests", "Write the docs"}
	var creates []scripted.ToolCall
	for i, subj := range subjects {
		id := fmt.Sprint(i + 1)
		creates = append(creates, call("create"+id, "TaskCreate", map[string]string{"subject": subj, "description": subj + "."}))
		s.byTask[id] = scripted.New(&scripted.Script{Turns: []scripted.Turn{
			{ToolCalls: []scripted.ToolCall{call("done"+id, "TaskUpdate", map[string]string{"taskId": id, "status": "completed"})}},
			{Text: "(scripted) " + subj + ": done and checked."},
		}})
	}
	for _, n := range []string{"alice", "bob"} {
		s.byName[n] = scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "(scripted) ready"}}})
	}
	spawn := func(name string) scripted.ToolCall {
		return call("spawn-"+name, "Agent", map[string]any{"description": "teammate " + name, "prompt": "Take tasks from the shared list.",
			"subagent_type": subagent.GeneralPurpose, "run_in_background": true, "name": name})
	}
	stop := func(name string) scripted.ToolCall {
		return call("stop-"+name, "SendMessage", map[string]any{"to": name, "message": map[string]string{"type": "shutdown_request", "reason": "all done"}})
	}
	s.lead = scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: creates},
		{ToolCalls: []scripted.ToolCall{call("link", "TaskUpdate", map[string]any{"taskId": "2", "addBlockedBy": []string{"1"}})}},
		{ToolCalls: []scripted.ToolCall{spawn("alice"), spawn("bob")}},
		{Text: "(scripted) The team is on it; I will wait for their reports."},
		{ExpectContains: "Completed task #", ToolCalls: []scripted.ToolCall{stop("alice"), stop("bob")}},
		{Text: "(scripted) All three tasks are done and the team is shutting down."},
		{Text: "(scripted) All three tasks are done and the team is shutting down."},
	}})
	return s
}
