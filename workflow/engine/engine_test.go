package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/workflow"
)

// scripted is a Runner whose answers a function decides; it counts calls and the most
// agents it saw at once.
type scripted struct {
	answer  func(prompt string, o workflow.AgentOptions) (string, error)
	tokens  int
	calls   atomic.Int64
	running atomic.Int64
	peak    atomic.Int64
	mu      sync.Mutex
	prompts []string
}

func (s *scripted) Agent(ctx context.Context, prompt string, o workflow.AgentOptions) (string, llm.Usage, error) {
	s.calls.Add(1)
	n := s.running.Add(1)
	defer s.running.Add(-1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	s.mu.Lock()
	s.prompts = append(s.prompts, prompt)
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return "", llm.Usage{}, err
	}
	text, err := s.answer(prompt, o)
	return text, llm.Usage{InputTokens: s.tokens}, err
}

func echo() *scripted {
	return &scripted{answer: func(p string, _ workflow.AgentOptions) (string, error) { return "did: " + p, nil }}
}

const head = "export const meta = { name: 't', description: 'test' };\n"

func runT(t *testing.T, src string, o workflow.Options) workflow.Result {
	t.Helper()
	res, err := Run(context.Background(), workflow.Script{Name: "t", Source: src}, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestMetaMustBeAPureLiteralFirst(t *testing.T) {
	bad := map[string]string{
		"no meta":         "const x = 1;",
		"meta later":      "const x = 1;\nexport const meta = {name:'a'};",
		"let":             "export let meta = {name:'a'};",
		"call":            "export const meta = {name: String(1)};",
		"variable":        "const n='a';\nexport const meta = {name: n};",
		"template expr":   "export const meta = {name: `a${1}`};",
		"spread":          "export const meta = {...{name:'a'}};",
		"computed key":    "export const meta = {['name']: 'a'};",
		"method":          "export const meta = {name:'a', f() { return 1 }};",
		"getter":          "export const meta = {get name() { return 'a' }};",
		"shorthand":       "export const meta = {name};",
		"not an object":   "export const meta = 'a';",
		"no name":         "export const meta = {description: 'x'};",
		"wrong type":      "export const meta = {name: 'a', phases: 'x'};",
		"syntax error":    "export const meta = {name:'a'};\nlet = = 2;",
		"function in arr": "export const meta = {name:'a', phases:[(() => ({title:'x'}))()]};",
	}
	for what, src := range bad {
		r := echo()
		_, err := Run(context.Background(), workflow.Script{Source: src}, workflow.Options{Runner: r})
		if err == nil {
			t.Errorf("%s: accepted", what)
		}
		if r.calls.Load() != 0 {
			t.Errorf("%s: an agent ran", what)
		}
	}
	// Side effects in meta never run: the check comes first.
	_, err := Run(context.Background(), workflow.Script{Source: "export const meta = {name: agent('x')};"}, workflow.Options{Runner: echo()})
	if err == nil || !strings.Contains(err.Error(), "pure literal") {
		t.Fatalf("want a pure-literal error, got %v", err)
	}
	res := runT(t, "// a comment\n/* another */\nexport const meta = {name:'n', description:'d', whenToUse: `w`, phases:[{title:'a', detail:'b'}], n: -1, ok: true, z: null};\nreturn meta.name;", workflow.Options{Runner: echo()})
	if res.Status != workflow.StatusCompleted || string(res.Value) != `"n"` || res.Meta.Phases[0].Title != "a" {
		t.Fatalf("%+v", res)
	}
}

func TestAgentParallelPipeline(t *testing.T) {
	r := echo()
	res := runT(t, head+`
const a = await agent('one', {label: 'first'});
const [b, c] = await parallel([() => agent('two'), () => agent('three')]);
const p = await pipeline(['x', 'y'], (prev, item, i) => agent('s1 ' + item + i), (prev, item, i) => prev + '|' + item + i);
return {a, b, c, p, args};`, workflow.Options{Runner: r, Args: json.RawMessage(`{"k":[1,2]}`)})
	if res.Status != workflow.StatusCompleted {
		t.Fatalf("%+v", res)
	}
	want := `{"a":"did: one","b":"did: two","c":"did: three","p":["did: s1 x0|x0","did: s1 y1|y1"],"args":{"k":[1,2]}}`
	if string(res.Value) != want {
		t.Fatalf("got %s\nwant %s", res.Value, want)
	}
	if res.Agents != 5 {
		t.Fatalf("agents = %d", res.Agents)
	}
}

func TestParallelFailuresBecomeNull(t *testing.T) {
	r := &scripted{answer: func(p string, _ workflow.AgentOptions) (string, error) {
		if p == "die" {
			return "", errors.New("agent died")
		}
		return p, nil
	}}
	res := runT(t, head+`
const out = await parallel([() => agent('ok'), () => agent('die'), () => { throw new Error('boom') }, async () => 7]);
const dead = await agent('die');
const piped = await pipeline([1, 2], (prev, item) => { if (item === 2) throw new Error('x'); return agent('ok') }, prev => prev + '!');
return {out, dead, piped};`, workflow.Options{Runner: r})
	if want := `{"out":["ok",null,null,7],"dead":null,"piped":["ok!",null]}`; string(res.Value) != want {
		t.Fatalf("got %s (%s)", res.Value, res.Error)
	}
}

// A pipeline moves each item on its own: item 0 reaches stage 2 while item 1 is still in
// stage 1 (which waits until it has).
func TestPipelineItemsMoveIndependently(t *testing.T) {
	stage2 := make(chan struct{})
	r := &scripted{answer: func(p string, _ workflow.AgentOptions) (string, error) {
		switch p {
		case "s1 1":
			select {
			case <-stage2:
			case <-time.After(10 * time.Second):
				return "", errors.New("item 0 never reached stage 2: the pipeline is a barrier")
			}
		case "s2 0":
			close(stage2)
		}
		return p, nil
	}}
	res := runT(t, head+`return await pipeline([0, 1], (_, it, i) => agent('s1 ' + i), (prev, it, i) => agent('s2 ' + i));`,
		workflow.Options{Runner: r, Concurrency: 4})
	if string(res.Value) != `["s2 0","s2 1"]` {
		t.Fatalf("%s %s", res.Value, res.Error)
	}
}

func TestSchemaValidatesAndRetries(t *testing.T) {
	var n atomic.Int64
	r := &scripted{answer: func(p string, _ workflow.AgentOptions) (string, error) {
		if strings.HasPrefix(p, "never") {
			return "no json here", nil
		}
		if n.Add(1) == 1 {
			return `{"ok": "yes"}`, nil // wrong type
		}
		if !strings.Contains(p, "did not fit") {
			return "", errors.New("the retry did not say why")
		}
		return "Here:\n```json\n{\"ok\": true, \"n\": 3}\n```", nil
	}}
	res := runT(t, head+`
const s = {type:'object', properties:{ok:{type:'boolean'}, n:{type:'integer'}}, required:['ok']};
const v = await agent('check', {schema: s});
const never = await agent('never fits', {schema: s});
return {ok: v.ok === true, n: v.n, never};`, workflow.Options{Runner: r})
	if string(res.Value) != `{"ok":true,"n":3,"never":null}` {
		t.Fatalf("%s %s", res.Value, res.Error)
	}
	if got := r.calls.Load(); got != 2+SchemaAttempts {
		t.Fatalf("runner calls = %d", got)
	}
	bad := runT(t, head+"await agent('x', {schema: {type: 12}})", workflow.Options{Runner: r})
	if bad.Status != workflow.StatusFailed || !strings.Contains(bad.Error, "schema") {
		t.Fatalf("%+v", bad)
	}
}

func TestDeterminismAndNoHostAccess(t *testing.T) {
	for _, expr := range []string{"Date.now()", "Math.random()", "new Date()", "Date()", "globalThis.Date.now()"} {
		res := runT(t, head+"return "+expr+";", workflow.Options{Runner: echo()})
		if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, "not allowed in a workflow") {
			t.Errorf("%s: %+v", expr, res)
		}
	}
	res := runT(t, head+`return [new Date(0).toISOString(), Date.UTC(2020, 0, 1), new Date(0) instanceof Date, typeof require, typeof process, typeof fetch, typeof console, typeof setTimeout];`, workflow.Options{Runner: echo()})
	if want := `["1970-01-01T00:00:00.000Z",1577836800000,true,"undefined","undefined","undefined","undefined","undefined"]`; string(res.Value) != want {
		t.Fatalf("%s %s", res.Value, res.Error)
	}
	// Redefining Math.random does not bring it back.
	res = runT(t, head+`try { Math.random = () => 4 } catch (e) {} ; return Math.random();`, workflow.Options{Runner: echo()})
	if res.Status != workflow.StatusFailed {
		t.Fatalf("%+v", res)
	}
	// A source map comment is not followed to the filesystem.
	dir := t.TempDir()
	secret := filepath.Join(dir, "x.map")
	if err := os.WriteFile(secret, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	res = runT(t, head+"return 1;\n//# sourceMappingURL="+secret+"\n", workflow.Options{Runner: echo()})
	if res.Status != workflow.StatusCompleted {
		t.Fatalf("%+v", res)
	}
}

func TestInfiniteLoopIsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	res, err := Run(ctx, workflow.Script{Source: head + "while (true) {}"}, workflow.Options{Runner: echo()})
	if err != nil || res.Status != workflow.StatusInterrupted {
		t.Fatalf("%+v %v", res, err)
	}
	res = runT(t, head+"for (;;) { await Promise.resolve(1) }", workflow.Options{Runner: echo(), Timeout: 100 * time.Millisecond})
	if res.Status != workflow.StatusInterrupted || !strings.Contains(res.Error, "time limit") {
		t.Fatalf("%+v", res)
	}
	res = runT(t, head+"await new Promise(() => {}); return 1", workflow.Options{Runner: echo()})
	if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, "nothing will ever settle") {
		t.Fatalf("%+v", res)
	}
	res = runT(t, head+"function f() { return f() + 1 }; return f()", workflow.Options{Runner: echo()})
	if res.Status != workflow.StatusFailed {
		t.Fatalf("%+v", res)
	}
}

func TestLimits(t *testing.T) {
	res := runT(t, head+"return await parallel(Array.from({length: 4097}, () => () => 1));", workflow.Options{Runner: echo()})
	if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, "4097 items; the limit is 4096") {
		t.Fatalf("%+v", res)
	}
	res = runT(t, head+"return (await pipeline(Array.from({length: 4096}, (_, i) => i), x => x * 2)).length;", workflow.Options{Runner: echo()})
	if string(res.Value) != "4096" {
		t.Fatalf("%+v", res)
	}
	r := echo()
	res = runT(t, head+"for (let i = 0; ; i++) { await agent('a' + i) }", workflow.Options{Runner: r})
	if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, "1000 agents") || r.calls.Load() != workflow.MaxAgents {
		t.Fatalf("%+v calls=%d", res, r.calls.Load())
	}
	// The limit is not swallowed by parallel.
	r = echo()
	res = runT(t, head+"await parallel(Array.from({length: 1001}, (_, i) => () => agent('p' + i))); return 'went on';", workflow.Options{Runner: r, Concurrency: 16})
	if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, "1000 agents") {
		t.Fatalf("%+v", res)
	}
	if workflow.DefaultConcurrency() < 1 || workflow.DefaultConcurrency() > 16 {
		t.Fatal(workflow.DefaultConcurrency())
	}
}

func TestConcurrencyBound(t *testing.T) {
	r := &scripted{answer: func(p string, _ workflow.AgentOptions) (string, error) {
		time.Sleep(5 * time.Millisecond)
		return p, nil
	}}
	res := runT(t, head+"return (await parallel(Array.from({length: 40}, (_, i) => () => agent('p' + i)))).length;", workflow.Options{Runner: r, Concurrency: 3})
	if string(res.Value) != "40" || r.peak.Load() > 3 || r.peak.Load() < 2 {
		t.Fatalf("%+v peak=%d", res, r.peak.Load())
	}
}

func TestBudgetIsAHardCeiling(t *testing.T) {
	r := echo()
	r.tokens = 40
	var maxSeen []int
	var mu sync.Mutex
	inner := r.answer
	r.answer = func(p string, o workflow.AgentOptions) (string, error) {
		mu.Lock()
		maxSeen = append(maxSeen, o.MaxTokens)
		mu.Unlock()
		return inner(p, o)
	}
	res := runT(t, head+`log(budget.total, budget.spent(), budget.remaining());
for (let i = 0; i < 10; i++) await agent('a' + i);
return 'all';`, workflow.Options{Runner: r, Budget: 100})
	if res.Status != workflow.StatusBudget || r.calls.Load() != 3 || res.Tokens != 120 {
		t.Fatalf("%+v calls=%d", res, r.calls.Load())
	}
	if fmt.Sprint(maxSeen) != "[100 60 20]" {
		t.Fatalf("MaxTokens given: %v", maxSeen)
	}
	res = runT(t, head+"return [budget.total, budget.remaining()]", workflow.Options{Runner: echo()})
	if string(res.Value) != "[null,null]" { // Infinity is null in JSON
		t.Fatalf("%s", res.Value)
	}
}

func TestIsolationAndOptions(t *testing.T) {
	var iso workflow.AgentOptions
	res := runT(t, head+"await agent('x', {isolation: 'worktree'})", workflow.Options{Runner: &scripted{answer: func(p string, o workflow.AgentOptions) (string, error) { iso = o; return p, nil }}})
	if res.Status == workflow.StatusFailed || iso.Isolation != "worktree" {
		t.Fatalf("isolation did not reach the runner: %+v %+v", res, iso)
	}
	res = runT(t, head+"await agent('x', {isolation: 'remote'})", workflow.Options{Runner: echo()})
	if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, "the only value is 'worktree'") {
		t.Fatalf("%+v", res)
	}
	res = runT(t, head+"await agent('x', {effort: 'extreme'})", workflow.Options{Runner: echo()})
	if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, `effort "extreme" is unknown; it is one of low, medium, high, xhigh, max`) {
		t.Fatalf("%+v", res)
	}
	res = runT(t, head+"await agent('x', {labl: 'typo'})", workflow.Options{Runner: echo()})
	if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, "labl") {
		t.Fatalf("%+v", res)
	}
	var got workflow.AgentOptions
	r := &scripted{answer: func(p string, o workflow.AgentOptions) (string, error) { got = o; return p, nil }}
	runT(t, head+"phase('Review'); await agent('x', {label: 'L', agentType: 'Explore', model: 'haiku', effort: 'low'})", workflow.Options{Runner: r})
	if got.Label != "L" || got.AgentType != "Explore" || got.Model != "haiku" || got.Effort != "low" || got.Phase != "Review" {
		t.Fatalf("%+v", got)
	}
}

func TestNestedWorkflowOneLevel(t *testing.T) {
	saved := map[string]string{
		"child":    head + "return 'child:' + (await agent('c ' + args.x));",
		"grandkid": head + "return await workflow('child', {x: 1});",
	}
	resolve := func(name string) (workflow.Script, error) {
		if s, ok := saved[name]; ok {
			return workflow.Script{Name: name, Source: s}, nil
		}
		return workflow.Script{}, fmt.Errorf("no saved workflow %q", name)
	}
	r := echo()
	res := runT(t, head+"return [await workflow('child', {x: 2}), await agent('p')];", workflow.Options{Runner: r, Resolve: resolve})
	if string(res.Value) != `["child:did: c 2","did: p"]` || res.Agents != 2 {
		t.Fatalf("%+v", res)
	}
	res = runT(t, head+"return await workflow('grandkid');", workflow.Options{Runner: r, Resolve: resolve})
	if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, "one level") {
		t.Fatalf("%+v", res)
	}
	res = runT(t, head+"return await workflow('nope');", workflow.Options{Runner: r, Resolve: resolve})
	if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, `no saved workflow "nope"`) {
		t.Fatalf("%+v", res)
	}
}

func TestResumeReplaysTheUnchangedPrefix(t *testing.T) {
	store := workflow.NewMemStore()
	script := func(third string) string {
		return head + `
phase('a');
const xs = await parallel([() => agent('one'), () => agent('two')]);
const y = await agent('` + third + `');
const z = await agent('four', {schema: {type: 'object'}});
return [xs, y, z];`
	}
	r := &scripted{answer: func(p string, _ workflow.AgentOptions) (string, error) {
		if strings.HasPrefix(p, "four") {
			return `{"k": 1}`, nil
		}
		return "did: " + p, nil
	}}
	first := runT(t, script("three"), workflow.Options{Runner: r, Store: store})
	if first.Status != workflow.StatusCompleted || r.calls.Load() != 4 {
		t.Fatalf("%+v", first)
	}
	r.calls.Store(0)
	again := runT(t, script("three"), workflow.Options{Runner: r, Store: store, Resume: first.RunID})
	if r.calls.Load() != 0 || again.Replayed != 4 || string(again.Value) != string(first.Value) || again.RunID == first.RunID {
		t.Fatalf("same script: calls=%d %+v", r.calls.Load(), again)
	}
	// Resuming the resumed run works too: its journal holds the replayed calls.
	third := runT(t, script("three"), workflow.Options{Runner: r, Store: store, Resume: again.RunID})
	if r.calls.Load() != 0 || third.Replayed != 4 {
		t.Fatalf("resume of a resume: %+v", third)
	}
	changed := runT(t, script("THREE"), workflow.Options{Runner: r, Store: store, Resume: first.RunID})
	if r.calls.Load() != 2 || changed.Replayed != 2 {
		t.Fatalf("changed third call: calls=%d %+v", r.calls.Load(), changed)
	}
	for _, id := range []string{"wf_nothere", "nope"} {
		if _, err := Run(context.Background(), workflow.Script{Source: script("x")}, workflow.Options{Runner: r, Store: store, Resume: id}); err == nil {
			t.Errorf("resume %s accepted", id)
		}
	}
}

// A script that grows an array without end is stopped at its memory limit with an error
// that names the limit and how to raise it; the same script without a limit would grow
// until the machine ran out.
func TestRunawayMemoryIsStopped(t *testing.T) {
	const limit = 64 << 20
	res := runT(t, head+"const a = []; for (let i = 0; ; i++) { a.push('item ' + i + ' '.repeat(100)) }",
		workflow.Options{Runner: echo(), MemoryLimit: limit})
	if res.Status != workflow.StatusFailed || !strings.Contains(res.Error, "more than its limit of 64 MiB") ||
		!strings.Contains(res.Error, MemoryLimitEnv+"=128MiB") {
		t.Fatalf("%+v", res)
	}
	// A script well under its limit runs to its end.
	res = runT(t, head+"const a = []; for (let i = 0; i < 1000; i++) { a.push('x' + i) }; return a.length",
		workflow.Options{Runner: echo(), MemoryLimit: limit})
	if res.Status != workflow.StatusCompleted || string(res.Value) != "1000" {
		t.Fatalf("%+v", res)
	}
}

func TestMemoryLimitFromEnv(t *testing.T) {
	for v, want := range map[string]int64{"": DefaultMemoryLimit, "2GiB": 2 << 30, "512MB": 512e6, " 64 MiB ": 64 << 20, "1048576": 1 << 20} {
		got, err := MemoryLimitFromEnv(func(string) string { return v })
		if err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"lots", "0", "-1GiB", "1.5XB"} {
		if _, err := MemoryLimitFromEnv(func(string) string { return v }); err == nil || !strings.Contains(err.Error(), MemoryLimitEnv) {
			t.Errorf("%q: %v", v, err)
		}
	}
}
