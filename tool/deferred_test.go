package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

type deferrable struct{ name, desc string }

func (n deferrable) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: n.name, Description: n.desc,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`)}
}
func (n deferrable) ReadOnly() bool                             { return true }
func (n deferrable) Run(context.Context, *Exec) (Result, error) { return Text("ran " + n.name), nil }

func specNames(r *Registry) string {
	var out []string
	for _, s := range r.Specs() {
		out = append(out, s.Name)
	}
	return strings.Join(out, ",")
}

func TestDeferredToolsLoadThroughToolSearch(t *testing.T) {
	r := NewRegistry(deferrable{"Read", "reads files"})
	for _, d := range []deferrable{{"CronCreate", "schedules a prompt on a cron expression"}, {"CronList", "lists scheduled jobs"}, {"NotebookEdit", "edits a notebook cell"}} {
		if err := r.AddDeferred(d); err != nil {
			t.Fatal(err)
		}
	}
	search := NewSearch(r)
	if err := r.Add(search); err != nil {
		t.Fatal(err)
	}
	if got := specNames(r); got != "Read,ToolSearch" {
		t.Fatalf("offered before loading: %s", got)
	}
	if d := search.Spec().Description; !strings.Contains(d, "CronCreate, CronList, NotebookEdit") {
		t.Errorf("ToolSearch does not name the deferred tools: %s", d)
	}

	run := func(q string) Result {
		in, _ := json.Marshal(map[string]any{"query": q})
		return r.Run(context.Background(), Call{ID: "1", Name: ToolSearchName, Input: in})
	}
	res := run("schedule cron")
	if res.IsError || !strings.Contains(res.Text(), `"name":"CronCreate"`) || !strings.Contains(res.Text(), `"parameters"`) {
		t.Fatalf("keyword search: %s", res.Text())
	}
	if strings.Contains(res.Text(), "NotebookEdit") {
		t.Errorf("a tool matching no word was loaded: %s", res.Text())
	}
	// Loaded tools join the end of the list, so the earlier ones stay in a prompt cache.
	if got := specNames(r); got != "Read,ToolSearch,CronCreate,CronList" {
		t.Errorf("offered after loading: %s", got)
	}

	if res := run("select:Nope"); !res.IsError || !strings.Contains(res.Text(), "No tool named Nope") {
		t.Errorf("an unknown name in select: %s", res.Text())
	}
	// Issue 29: forgiving select: a loaded or ordinary tool is said to be there, a name
	// in the wrong case is taken, and an unknown one does not fail the others.
	if res := run("select:CronCreate,Read"); res.IsError || !strings.Contains(res.Text(), "CronCreate, Read are already available") {
		t.Errorf("select of tools already there: %s", res.Text())
	}
	if res := run("select:CronCreate, notebookedit ,Nope"); res.IsError || !strings.Contains(res.Text(), "Loaded NotebookEdit") ||
		!strings.Contains(res.Text(), "CronCreate is already available") || !strings.Contains(res.Text(), "No tool named Nope") {
		t.Errorf("a mixed select: %s", res.Text())
	}
	if res := run("zzz"); !res.IsError {
		t.Errorf("a query matching nothing: %s", res.Text())
	}
	if res := run("select:NotebookEdit"); res.IsError {
		t.Errorf("select: %s", res.Text())
	}
	if got := specNames(r); !strings.Contains(got, "NotebookEdit") {
		t.Errorf("select did not load: %s", got)
	}
}

// A deferred tool called by name (its schema read before a resume) is checked and run,
// and offered from then on; a bad call says how to read its schema.
func TestDeferredToolCalledByNameLoads(t *testing.T) {
	r := NewRegistry()
	if err := r.AddDeferred(deferrable{"CronList", "lists"}); err != nil {
		t.Fatal(err)
	}
	res := r.Run(context.Background(), Call{ID: "1", Name: "CronList", Input: json.RawMessage(`{}`)})
	if !res.IsError || !strings.Contains(res.Text(), `select:CronList`) {
		t.Fatalf("bad call to an unloaded tool: %s", res.Text())
	}
	if specNames(r) != "" {
		t.Fatal("a failed call loaded the tool")
	}
	res = r.Run(context.Background(), Call{ID: "2", Name: "CronList", Input: json.RawMessage(`{"x":"y"}`)})
	if res.IsError || specNames(r) != "CronList" {
		t.Fatalf("call: %s; offered: %s", res.Text(), specNames(r))
	}
	r.Remove("CronList")
	if len(r.DeferredNames()) != 0 {
		t.Error("a removed tool is still deferred")
	}
}

// The tool set changes while a session runs (MCP's list_changed) and is read meanwhile
// (background agents, the next request): run with -race.
func TestRegistryToolSetIsSafeForConcurrentUse(t *testing.T) {
	r := NewRegistry(deferrable{"Read", "reads"})
	if err := r.AddDeferred(deferrable{"Rare", "rare"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(NewSearch(r)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			name := fmt.Sprintf("mcp__s__t%d", i%5)
			_ = r.Add(deferrable{name, "x"})
			r.Remove(name)
		}
	}()
	for range 200 {
		_ = r.Specs()
		_ = r.Names()
		_, _ = r.Get("Read")
		r.Run(context.Background(), Call{ID: "1", Name: "Read", Input: json.RawMessage(`{"x":"y"}`)})
		_ = r.DeferredNames()
	}
	<-done
}

// Hundreds of MCP tools do not cost every request their names: past the bound each
// server's tools are counted under its prefix, and keyword queries still find them.
func TestToolSearchListStaysBounded(t *testing.T) {
	r := NewRegistry()
	for s := 0; s < 6; s++ {
		for i := 0; i < 80; i++ {
			d := deferrable{fmt.Sprintf("mcp__server%d__operation_number_%d", s, i), "does a thing"}
			if s == 3 && i == 41 {
				d.desc = "creates a pull request"
			}
			if err := r.AddDeferred(d); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < 400; i++ {
		if err := r.AddDeferred(deferrable{fmt.Sprintf("mcp__srv%03d__x", i), "one tool"}); err != nil {
			t.Fatal(err)
		}
	}
	search := NewSearch(r)
	d := search.Spec().Description
	if len(d) > maxListed+400 {
		t.Errorf("description is %d bytes", len(d))
	}
	if !strings.Contains(d, "mcp__server3__* (80 tools)") || !strings.Contains(d, "more groups; search by keyword") {
		t.Errorf("description: %s", d)
	}
	in, _ := json.Marshal(map[string]any{"query": "pull request"})
	if err := r.Add(search); err != nil {
		t.Fatal(err)
	}
	res := r.Run(context.Background(), Call{ID: "1", Name: ToolSearchName, Input: in})
	if res.IsError || !strings.Contains(res.Text(), "mcp__server3__operation_number_41") {
		t.Errorf("keyword search: %s", res.Text())
	}
}

// Deferred tools are offered in the order they were loaded, after every tool that is not
// deferred, whatever the order they were registered in; a removed tool leaves the list,
// and the rest keep their places.
func TestLoadedToolsJoinTheEndInLoadOrder(t *testing.T) {
	r := NewRegistry(deferrable{"Read", "reads files"})
	for _, d := range []deferrable{{"Alpha", "a"}, {"Beta", "b"}, {"Gamma", "c"}} {
		if err := r.AddDeferred(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Add(deferrable{"Write", "writes files"}); err != nil {
		t.Fatal(err)
	}
	r.Load("Gamma")
	r.Load("Alpha", "Gamma") // Gamma again: no second copy, no move
	if got := specNames(r); got != "Read,Write,Gamma,Alpha" {
		t.Errorf("offered: %s; want the ordinary tools, then Gamma and Alpha as loaded", got)
	}
	r.Remove("Gamma")
	r.Load("Beta")
	if got := specNames(r); got != "Read,Write,Alpha,Beta" {
		t.Errorf("after removing Gamma and loading Beta: %s", got)
	}
	if err := r.AddDeferred(deferrable{"Gamma", "c"}); err != nil {
		t.Fatal(err)
	}
	if got := specNames(r); got != "Read,Write,Alpha,Beta" {
		t.Errorf("a re-added deferred tool is offered before it is loaded: %s", got)
	}
}
