package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/tool"
)

type fakeTool struct {
	name     string
	readOnly bool
	run      func(ctx context.Context, in json.RawMessage) (tool.Result, error)
}

func (f *fakeTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: f.name, Description: f.name, InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (f *fakeTool) ReadOnly() bool { return f.readOnly }
func (f *fakeTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	in := x.Input
	if f.run == nil {
		return tool.Text(f.name + " ran"), nil
	}
	return f.run(ctx, in)
}

// barrier returns a tool that passes only once n calls are inside it at the same time.
func barrier(name string, n int) *fakeTool {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return &fakeTool{name: name, readOnly: true, run: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		mu.Lock()
		arrived++
		if arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			return tool.Text("barrier passed: intermediate output"), nil
		case <-time.After(10 * time.Second):
			return tool.Result{}, errors.New("no overlap: the other call never arrived")
		}
	}}
}

func input(t *testing.T, typ, prompt string) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(map[string]string{"description": "look at things", "prompt": prompt, "subagent_type": typ})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func taskCall(typ, prompt string) scripted.ToolCall {
	b, _ := json.Marshal(map[string]string{"description": "explore the code", "prompt": prompt, "subagent_type": typ})
	return scripted.ToolCall{Name: TaskName, Input: b}
}

func TestTwoExploreTasksRunConcurrently(t *testing.T) {
	parentTools := tool.NewRegistry(barrier("Grep", 2), &fakeTool{name: "Bash"})
	child := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Grep", Input: json.RawMessage(`{"pattern":"x"}`)}}},
		{ToolCalls: []scripted.ToolCall{{Name: "Grep", Input: json.RawMessage(`{"pattern":"x"}`)}}},
		{Text: "FINAL: the answer is in main.go:3"},
		{Text: "FINAL: the answer is in main.go:3"},
	}})
	parent := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{Text: "Delegating.", ToolCalls: []scripted.ToolCall{taskCall(Explore, "find A"), taskCall(Explore, "find B")}},
		{ExpectContains: "FINAL: the answer", Text: "Both found it."},
	}})
	dir := filepath.Join(t.TempDir(), "subagents")
	var mu sync.Mutex
	seen := map[string]int{}
	task, _ := NewTool(Config{
		Provider: parent, Model: "scripted", Tools: parentTools, TranscriptDir: dir,
		BaseSystem: "You are ouro.\n<env>\nWorking directory: /x\nTools: Grep, Bash, Task\n</env>\n",
		ProviderFor: func(agentType, model string) (llm.Provider, string) {
			if agentType != Explore {
				t.Errorf("unexpected agent type %q", agentType)
			}
			return child, "scripted"
		},
		Observer: func(id string, e agent.Event) {
			mu.Lock()
			seen[id]++
			mu.Unlock()
		},
	})
	if err := parentTools.Add(task); err != nil {
		t.Fatal(err)
	}
	if !task.ReadOnlyInput(input(t, Explore, "x")) || task.ReadOnlyInput(input(t, GeneralPurpose, "x")) {
		t.Fatal("Explore should be read-only and general-purpose not")
	}
	// The parent's observer sees each child's steps as progress of the Task call that
	// started it, tagged with that call's own id.
	progress := map[string][]string{}
	a, err := agent.New(agent.Config{Provider: parent, Model: "scripted", Tools: parentTools, Observers: []agent.Observer{func(e agent.Event) {
		if e.Type == agent.EventToolProgress {
			mu.Lock()
			progress[e.Call.ID] = append(progress[e.Call.ID], e.Progress.Message)
			mu.Unlock()
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	conv := &agent.Conversation{}
	out := a.Run(context.Background(), conv, llm.TextBlock("look around"))
	if !out.OK() || out.Result != "Both found it." {
		t.Fatalf("outcome %+v", out)
	}
	results := conv.Messages[2].Content
	if len(results) != 2 {
		t.Fatalf("want 2 tool results, got %d", len(results))
	}
	for _, r := range results {
		txt := r.ResultText()
		if r.IsError || !strings.HasPrefix(txt, "FINAL: the answer is in main.go:3") || !strings.Contains(txt, "[subagent Explore: 2 turns,") || !strings.Contains(txt, "completed]") {
			t.Errorf("result %q (error %v)", txt, r.IsError)
		}
		if strings.Contains(txt, "barrier passed") || strings.Contains(txt, "intermediate") {
			t.Errorf("the parent saw a child's intermediate output: %q", txt)
		}
	}
	// The children got fresh messages, their own prompt and only read-only tools.
	for _, req := range child.Requests()[:2] {
		if len(req.Messages) != 1 || !strings.HasPrefix(req.Messages[0].Text(), "find ") {
			t.Errorf("child request messages: %+v", req.Messages)
		}
		if len(req.Tools) != 1 || req.Tools[0].Name != "Grep" {
			t.Errorf("child tools: %+v", req.Tools)
		}
		if !strings.Contains(req.System, "read-only exploration") || !strings.Contains(req.System, "Tools: Grep\n") || !strings.Contains(req.System, "Working directory: /x") {
			t.Errorf("child system prompt: %q", req.System)
		}
	}
	for _, id := range []string{"toolu_01_01", "toolu_01_02"} {
		if seen[id] == 0 {
			t.Errorf("no child events tagged %s: %v", id, seen)
		}
		if p := progress[id]; !slices.Contains(p, "Explore: turn 1") || !slices.Contains(p, "Explore: Grep") {
			t.Errorf("progress of %s = %q, want the child's turns and tool calls", id, p)
		}
		tr, err := session.Load(filepath.Join(dir, "Explore-"+id+".jsonl"))
		if err != nil {
			t.Fatalf("transcript: %v", err)
		}
		msgs, _ := tr.Messages()
		if len(msgs) != 4 {
			t.Errorf("transcript %s has %d messages, want 4", id, len(msgs))
		}
		kinds := map[string]int{}
		for _, e := range tr.Entries {
			kinds[e.Type]++
		}
		if kinds["subagent"] != 1 || kinds["tool"] != 1 || kinds[session.TypeOutcome] != 1 {
			t.Errorf("transcript %s entries: %v", id, kinds)
		}
	}
	u, _ := task.Usage()
	if u.Total() == 0 {
		t.Error("Usage() reports nothing")
	}
}

type denyGate struct{ name string }

func (g denyGate) Gate(_ context.Context, c tool.Call) agent.Decision {
	if c.Name == g.name {
		return agent.Decision{Deny: true, Reason: "Bash is not allowed here"}
	}
	return agent.Decision{}
}

func TestChildToolDeniedByGate(t *testing.T) {
	ran := false
	parentTools := tool.NewRegistry(&fakeTool{name: "Bash", run: func(context.Context, json.RawMessage) (tool.Result, error) {
		ran = true
		return tool.Text("ok"), nil
	}})
	child := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Bash", Input: json.RawMessage(`{"command":"rm -rf /"}`)}}},
		{ExpectContains: "Permission denied", Text: "I could not run the command: permission was denied."},
	}})
	task, _ := NewTool(Config{Provider: child, Model: "scripted", Tools: parentTools, Gates: []agent.Gate{denyGate{"Bash"}},
		Definitions: []Definition{{Name: "runner", Description: "runs things", Tools: []string{"Bash"}, Source: "project"}}})
	res, err := task.Run(context.Background(), tool.ExecInput(input(t, "runner", "clean up")))
	if err != nil {
		t.Fatal(err)
	}
	txt := res.Text()
	if ran {
		t.Error("the denied tool ran")
	}
	if res.IsError || !strings.Contains(txt, "permission was denied") || !strings.Contains(txt, "[subagent runner: permission denied for Bash: Bash is not allowed here]") {
		t.Errorf("result %q", txt)
	}
}

func TestChildTurnLimitIsError(t *testing.T) {
	parentTools := tool.NewRegistry(&fakeTool{name: "Read", readOnly: true})
	var turns []scripted.Turn
	for i := 0; i < 5; i++ {
		turns = append(turns, scripted.Turn{Text: "still looking", ToolCalls: []scripted.ToolCall{{Name: "Read", Input: json.RawMessage(`{"i":` + string(rune('0'+i)) + `}`)}}})
	}
	child := scripted.New(&scripted.Script{Turns: turns})
	task, _ := NewTool(Config{Provider: child, Model: "scripted", Tools: parentTools, MaxTurns: 2})
	res, _ := task.Run(context.Background(), tool.ExecInput(input(t, Explore, "loop")))
	txt := res.Text()
	if !res.IsError || !strings.Contains(txt, "limit of 2 turns") || !strings.Contains(txt, "budget_exhausted (turns)") {
		t.Errorf("result %q (error %v)", txt, res.IsError)
	}
}

func TestChildFailureAndInterruptAreErrors(t *testing.T) {
	parentTools := tool.NewRegistry(&fakeTool{name: "Read", readOnly: true})
	failing := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Fault: &scripted.Fault{Status: 400, Message: "bad request"}}}})
	task, _ := NewTool(Config{Provider: failing, Model: "scripted", Tools: parentTools})
	res, _ := task.Run(context.Background(), tool.ExecInput(input(t, Explore, "x")))
	if !res.IsError || !strings.Contains(res.Text(), "failed") {
		t.Errorf("failure: %q", res.Text())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	task, _ = NewTool(Config{Provider: scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "hi"}}}), Model: "scripted", Tools: parentTools})
	res, _ = task.Run(ctx, tool.ExecInput(input(t, Explore, "x")))
	if !res.IsError || !strings.Contains(res.Text(), "interrupted") {
		t.Errorf("interrupt: %q", res.Text())
	}
}

func TestUnknownTypeListsTypes(t *testing.T) {
	reg := tool.NewRegistry(&fakeTool{name: "Read", readOnly: true})
	task, alias := NewTool(Config{Provider: scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "x"}}}), Model: "scripted", Tools: reg,
		Definitions: []Definition{{Name: "reviewer", Description: "reviews diffs", Source: "user"}}})
	res, _ := task.Run(context.Background(), tool.ExecInput(input(t, "nope", "x")))
	if !res.IsError || !strings.Contains(res.Text(), "Explore, general-purpose, reviewer") {
		t.Errorf("direct: %q", res.Text())
	}
	reg.Add(task)
	reg.Add(alias)
	r := reg.Run(context.Background(), tool.Call{ID: "1", Name: AgentName, Input: input(t, "nope", "x")})
	if !r.IsError || !strings.Contains(r.Text(), "reviewer") || !strings.Contains(r.Text(), "Explore") {
		t.Errorf("through the registry: %q", r.Text())
	}
	spec := task.Spec()
	if spec.Name != TaskName || alias.Spec().Name != AgentName || !strings.Contains(spec.Description, "- reviewer: reviews diffs") || !strings.Contains(spec.Description, "- Explore:") {
		t.Errorf("spec: %+v", spec)
	}
}

func TestNestingBounded(t *testing.T) {
	reg := tool.NewRegistry(&fakeTool{name: "Read", readOnly: true}, &fakeTool{name: "Bash"})
	def := Definition{Name: "lead", Description: "inherits", Source: "project"}
	task, _ := NewTool(Config{Tools: reg, Definitions: []Definition{def}})
	reg.Add(task)
	if got := task.sh.toolNames(def); strings.Join(got, ",") != "Read,Bash,Task" {
		t.Errorf("depth 0: %v", got)
	}
	if got := task.sh.toolNames(task.sh.byName[GeneralPurpose]); strings.Join(got, ",") != "Read,Bash" {
		t.Errorf("general-purpose: %v", got)
	}
	deep, _ := NewTool(Config{Tools: reg, Definitions: []Definition{def}, Depth: 1})
	if got := deep.sh.toolNames(def); strings.Join(got, ",") != "Read,Bash" {
		t.Errorf("depth 1: %v", got)
	}
}

func TestNestedTaskUsageRollsUp(t *testing.T) {
	reg := tool.NewRegistry(&fakeTool{name: "Read", readOnly: true})
	nestedIn, _ := json.Marshal(map[string]string{"description": "d", "prompt": "inner", "subagent_type": Explore})
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: TaskName, Input: nestedIn}}, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 1}},
		{Text: "inner done", Usage: &llm.Usage{InputTokens: 100, OutputTokens: 1}},
		{ExpectContains: "inner done", Text: "outer done", Usage: &llm.Usage{InputTokens: 1000, OutputTokens: 1}},
	}})
	task, _ := NewTool(Config{Provider: prov, Model: "scripted", Tools: reg,
		Definitions: []Definition{{Name: "lead", Description: "inherits", Source: "project"}}})
	reg.Add(task)
	res, _ := task.Run(context.Background(), tool.ExecInput(input(t, "lead", "outer")))
	if res.IsError || !strings.Contains(res.Text(), "outer done") || !strings.Contains(res.Text(), "1113 tokens") {
		t.Errorf("result %q", res.Text())
	}
	if u, _ := task.Usage(); u.Total() != 1113 {
		t.Errorf("usage %d, want 1113", u.Total())
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadDefinitions(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(proj, ".ouro/agents/reviewer.md"), "---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep, Bash(git diff *)\nmodel: inherit\nmaxTurns: 7\npermissionMode: plan\n---\n\nYou review code.\n")
	writeFile(t, filepath.Join(proj, ".claude/agents/reviewer.md"), "---\nname: reviewer\ndescription: the claude one\n---\nshadowed\n")
	writeFile(t, filepath.Join(proj, ".claude/agents/sub/tester.md"), "---\nname: tester\ndescription: |\n  Runs the tests\n  and reports.\ntools:\n  - Bash\n  - Read\nmodel: haiku\n---\nRun tests.\n")
	writeFile(t, filepath.Join(proj, ".claude/agents/nodesc.md"), "---\nname: nodesc\n---\nbody\n")
	writeFile(t, filepath.Join(proj, ".claude/agents/noname.md"), "---\ndescription: no name here\nmaxTurns: lots\n---\nbody\n")
	writeFile(t, filepath.Join(proj, ".claude/agents/Bad_Name.md"), "---\nname: Bad_Name\ndescription: bad name\n---\n")
	writeFile(t, filepath.Join(proj, ".claude/agents/broken.md"), "---\nname: [oops\n---\n")
	writeFile(t, filepath.Join(home, ".ouro/agents/tester.md"), "---\nname: tester\ndescription: user tester\n---\nuser\n")
	writeFile(t, filepath.Join(home, ".claude/agents/helper.md"), "---\nname: helper\ndescription: user helper\n---\nHelp.\n")

	defs, warns := LoadDefinitions(proj, home)
	by := map[string]Definition{}
	for _, d := range defs {
		by[d.Name] = d
	}
	r := by["reviewer"]
	if r.Description != "Reviews diffs." || strings.Join(r.Tools, ",") != "Read,Grep,Bash" || r.Model != "" || r.MaxTurns != 7 || r.PermissionMode != "plan" || r.Prompt != "You review code." || r.Source != "project" {
		t.Errorf("reviewer: %+v", r)
	}
	ts := by["tester"]
	if ts.Description != "Runs the tests\nand reports." || strings.Join(ts.Tools, ",") != "Bash,Read" || ts.Model != "haiku" || ts.Source != "project" {
		t.Errorf("tester (project must win over user): %+v", ts)
	}
	if h := by["helper"]; h.Source != "user" || h.Tools != nil || h.Prompt != "Help." {
		t.Errorf("helper: %+v", h)
	}
	if _, ok := by["nodesc"]; ok {
		t.Error("a definition without a description was loaded")
	}
	if n, ok := by["noname"]; !ok || n.MaxTurns != 0 {
		t.Errorf("noname: %+v %v", n, ok)
	}
	if _, ok := by["Bad_Name"]; !ok {
		t.Error("a bad name should only warn")
	}
	all := ""
	for _, w := range warns {
		all += w.String() + "\n"
	}
	for _, want := range []string{"no description", "no name; using the file name", "maxTurns", "should be lowercase", "bad YAML", "already defined by"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if len(defs) != 5 {
		t.Errorf("got %d definitions: %v", len(defs), by)
	}
}

type stopOnce struct{ n *int }

func (s stopOnce) BeforeStop(_ context.Context, st *agent.Stop) agent.StopDecision {
	*s.n++
	if st.Continued == 0 {
		return agent.StopDecision{Continue: true, Message: "SubagentStop says: check again"}
	}
	return agent.StopDecision{}
}

func TestStartAndStopHooks(t *testing.T) {
	reg := tool.NewRegistry(&fakeTool{name: "Read", readOnly: true})
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ExpectContains: "context from SubagentStart", Text: "first answer"},
		{ExpectContains: "check again", Text: "checked answer"},
	}})
	stops := 0
	var types []string
	task, _ := NewTool(Config{Provider: prov, Model: "scripted", Tools: reg,
		StartHook: func(_ context.Context, c Child) string {
			typ := c.Type
			types = append(types, typ)
			return "context from SubagentStart"
		},
		StopHook: func(c Child) agent.BeforeStop { types = append(types, c.Type); return stopOnce{&stops} },
	})
	res, _ := task.Run(context.Background(), tool.ExecInput(input(t, Explore, "go")))
	if res.IsError || !strings.HasPrefix(res.Text(), "checked answer") || stops != 2 {
		t.Errorf("result %q, stop hook ran %d times", res.Text(), stops)
	}
	if strings.Join(types, ",") != "Explore,Explore" {
		t.Errorf("hooks saw types %v", types)
	}
}
