package subagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/tool"
)

// A background agent keeps its conversation: a message to it once it has finished
// (SendMessage to its id) continues it as a new background task, whose report arrives
// as a notification like the first.

// resumable is a background agent that can be continued.
type resumable struct {
	d       Definition
	in      taskInput
	x       *tool.Exec
	conv    *agent.Conversation
	running bool
}

var agentIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`agentId: (\S+)`) })

// AgentStarter runs a child as a background task: run is the child's whole run under a
// context the task's stop cancels, and its final text is the task's result, which the
// starter hands the session as a notification once it ends; the call is answered at
// once. A *background.Manager is one; the interface lives here so that subagents do not
// import the manager.
type AgentStarter interface {
	StartAgent(x *tool.Exec, description string, run func(ctx context.Context, out io.Writer) (string, error)) tool.Result
}

// startBackground runs a child as a background task; with conv set it keeps it, so a
// message can continue it later.
func (sh *shared) startBackground(x *tool.Exec, d Definition, in taskInput, conv *agent.Conversation) tool.Result {
	r := &resumable{d: d, in: in, x: x, conv: conv, running: true}
	res := sh.cfg.Background.StartAgent(x, in.Description, func(ctx context.Context, _ io.Writer) (string, error) {
		var res tool.Result
		if in.Isolation != "" {
			res = sh.runChild(ctx, d, in, x)
		} else {
			res = sh.runChildOn(ctx, d, in, x, conv)
		}
		sh.mu.Lock()
		r.running = false
		sh.mu.Unlock()
		if res.IsError {
			return res.Text(), errors.New(firstLine(res.Text()))
		}
		return res.Text(), nil
	})
	if m := agentIDRE().FindStringSubmatch(res.Text()); m != nil && conv != nil && !res.IsError {
		sh.mu.Lock()
		if sh.resumable == nil {
			sh.resumable = map[string]*resumable{}
		}
		sh.resumable[m[1]] = r
		if x.ID != "" {
			sh.resumable[x.ID] = r // the Agent call's tool_use id names it too
		}
		sh.mu.Unlock()
	}
	return res
}

// ErrNotAgent: no background agent of this session has that id.
var ErrNotAgent = errors.New("no background agent has that id")

// Continue sends message to the background agent id (its task id, or the tool_use id of
// the Agent call that started it): once it has finished, it goes on
// with its conversation as a new background task. ErrNotAgent when id names none.
func (t *Tool) Continue(id, message string) (tool.Result, error) {
	sh := t.sh
	sh.mu.Lock()
	r, ok := sh.resumable[strings.TrimSpace(id)]
	running := ok && r.running
	sh.mu.Unlock()
	if !ok {
		return tool.Result{}, ErrNotAgent
	}
	if running {
		return tool.Errorf("Background agent %s is still working; its report arrives as a notification. Send your message once it has finished, and it continues from there.", id), nil
	}
	if sh.cfg.Background == nil {
		return tool.Errorf("background agents cannot run here"), nil
	}
	in := r.in
	in.Prompt = "A message from the lead (main), continuing your earlier work:\n" + message
	res := sh.startBackground(r.x, r.d, in, r.conv)
	if res.IsError {
		return res, nil
	}
	return tool.Text(fmt.Sprintf("Background agent %s continues with your message, as a new background task.\n%s", id, res.Text())), nil
}

// BackgroundAgents lists the ids of the background agents that can be continued.
func (t *Tool) BackgroundAgents() []string {
	t.sh.mu.Lock()
	defer t.sh.mu.Unlock()
	var out []string
	for id := range t.sh.resumable {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
