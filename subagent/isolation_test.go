package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/tool"
)

// An isolated child gets the rebound tools in place of the parent's, the isolation's
// gates, a prompt naming its worktree, and its result ends with what Finish says; the
// session-wide worktree tools are never a child's.
func TestIsolationRebindsToolsAndReports(t *testing.T) {
	parentBash := &fakeTool{name: "Bash", run: func(context.Context, json.RawMessage) (tool.Result, error) { return tool.Text("PARENT BASH"), nil }}
	childBash := &fakeTool{name: "Bash", run: func(context.Context, json.RawMessage) (tool.Result, error) { return tool.Text("WORKTREE BASH"), nil }}
	parent := tool.NewRegistry(parentBash, &fakeTool{name: "EnterWorktree"}, &fakeTool{name: "Read", readOnly: true})
	model := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ExpectContains: "/wt/agent-", ToolCalls: []scripted.ToolCall{{Name: "Bash", Input: json.RawMessage(`{"command":"x"}`)}}},
		{ExpectContains: "WORKTREE BASH", Text: "done in the worktree"},
		{Text: "direct done"},
	}})
	var names []string
	finished := 0
	cfg := Config{Provider: model, Model: "scripted", Tools: parent,
		Isolate: func(_ context.Context, name string, d Definition) (*Isolation, error) {
			names = append(names, name)
			return &Isolation{Dir: "/wt/" + name, Tools: map[string]tool.Tool{"Bash": childBash},
				Gates: []agent.Gate{denyGate{"Read"}},
				Finish: func(context.Context) string {
					finished++
					return "[worktree " + name + ": branch ouro/" + name + "]"
				}}, nil
		}}
	task, _ := NewTool(cfg)
	if !strings.Contains(string(task.Spec().InputSchema), `"isolation"`) {
		t.Fatal("the schema does not offer isolation")
	}
	in, _ := json.Marshal(map[string]string{"description": "d", "prompt": "work", "subagent_type": GeneralPurpose, "isolation": "worktree"})
	res, err := task.Run(context.Background(), tool.NewExec(tool.Call{ID: "toolu_9", Name: TaskName, Input: in}, nil, nil))
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, res.Text())
	}
	if txt := res.Text(); !strings.Contains(txt, "done in the worktree") || !strings.Contains(txt, "[worktree agent-toolu_9: branch ouro/agent-toolu_9]") {
		t.Errorf("result %q", txt)
	}
	if got := task.sh.toolNames(task.sh.byName[GeneralPurpose]); strings.Contains(strings.Join(got, ","), "EnterWorktree") {
		t.Errorf("a child is offered the session's worktree tools: %v", got)
	}
	text, _, err := task.RunDirect(context.Background(), Direct{Isolation: "worktree"}, "direct", nil)
	if err != nil || !strings.Contains(text, "direct done") || !strings.Contains(text, "[worktree agent-direct-") || finished != 2 {
		t.Errorf("RunDirect: %q %v (finished %d)", text, err, finished)
	}
	if _, _, err := task.RunDirect(context.Background(), Direct{Isolation: "remote"}, "x", nil); err == nil {
		t.Error("an unknown isolation was accepted")
	}

	// Without Isolate the option is not offered and a call asking for it is refused.
	plain, _ := NewTool(Config{Provider: model, Model: "scripted", Tools: parent})
	if strings.Contains(string(plain.Spec().InputSchema), `"isolation"`) {
		t.Error("isolation offered without a way to isolate")
	}
	if res, _ := plain.Run(context.Background(), tool.ExecInput(in)); !res.IsError || !strings.Contains(res.Text(), "not available") {
		t.Errorf("isolation without Isolate: %s", res.Text())
	}
	// A worktree that cannot be made: the child does not run.
	broken, _ := NewTool(Config{Provider: model, Model: "scripted", Tools: parent,
		Isolate: func(context.Context, string, Definition) (*Isolation, error) {
			return nil, errors.New("not a git repository")
		}})
	if res, _ := broken.Run(context.Background(), tool.ExecInput(in)); !res.IsError || !strings.Contains(res.Text(), "not a git repository") {
		t.Errorf("a failed isolation: %s", res.Text())
	}
}

// An isolated child's system prompt names its worktree as its working directory, not
// the lead's (which the parent's environment block names): a model that writes by
// absolute path takes the directory from there.
func TestIsolatedChildSystemPromptNamesItsWorktree(t *testing.T) {
	model := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "isolated done"}, {Text: "plain done"}}})
	cfg := Config{Provider: model, Model: "scripted", Tools: tool.NewRegistry(&fakeTool{name: "Read", readOnly: true}),
		BaseSystem: "You are ouro.\n<env>\nWorking directory: /lead/checkout\nIs a git repository: true\nTools: Read, Task\n</env>\n",
		Isolate: func(_ context.Context, name string, d Definition) (*Isolation, error) {
			return &Isolation{Dir: "/wt/" + name}, nil
		}}
	task, _ := NewTool(cfg)
	for _, iso := range []string{"worktree", ""} {
		in, _ := json.Marshal(map[string]string{"description": "d", "prompt": "work", "subagent_type": GeneralPurpose, "isolation": iso})
		if res, err := task.Run(context.Background(), tool.NewExec(tool.Call{ID: "toolu_7", Name: TaskName, Input: in}, nil, nil)); err != nil || res.IsError {
			t.Fatalf("%v %s", err, res.Text())
		}
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	isolated, plain := reqs[0].System, reqs[1].System
	if !strings.Contains(isolated, "Working directory: /wt/agent-toolu_7") || strings.Contains(isolated, "/lead/checkout") {
		t.Errorf("the isolated child's system prompt:\n%s", isolated)
	}
	if !strings.Contains(isolated, "Is a git repository: true") || !strings.Contains(isolated, "</env>") {
		t.Errorf("the rest of the environment block was lost:\n%s", isolated)
	}
	if !strings.Contains(plain, "Working directory: /lead/checkout") {
		t.Errorf("a child that is not isolated lost the lead's directory:\n%s", plain)
	}
}
