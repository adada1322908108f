//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// moduleRoot is ouro's own repository (the tests run in cmd/ouro).
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// lineOf is the 1-based line of the first line of file containing needle.
func lineOf(t *testing.T, file, needle string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, needle) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line containing %q", file, needle)
	return 0
}

func toolCall(name string, input map[string]any) scripted.ToolCall {
	in, _ := json.Marshal(input)
	return scripted.ToolCall{Name: name, Input: in}
}

// practiceRepo copies a practice repository of the eval task set into a temp folder.
func practiceRepo(t *testing.T, task string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), task)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(moduleRoot(t), "eval", "tasks", task, "repo"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

type scoutJSON struct {
	Status      string `json:"status"`
	Reason      string `json:"reason"`
	Corrected   bool   `json:"corrected"`
	Conclusions []struct {
		Section   string `json:"section"`
		Citations []struct {
			Raw      string `json:"raw"`
			Verified bool   `json:"verified"`
		} `json:"citations"`
	} `json:"conclusions"`
	Unverified []struct {
		Raw     string `json:"raw"`
		Problem string `json:"problem"`
	} `json:"unverified"`
	FilesSeen []string `json:"files_seen"`
	Fix       *struct {
		Status          string   `json:"status"`
		Changed         []string `json:"changed"`
		TestedAfterEdit bool     `json:"tested_after_edit"`
		TestPassed      bool     `json:"test_passed"`
	} `json:"fix"`
}

func decodeScout(t *testing.T, out string) scoutJSON {
	t.Helper()
	var r scoutJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, out)
	}
	return r
}

// The scout surveys ouro's own repository through the real Anthropic SDK path; every
// citation is checked against what the run read, and all hold.
func TestScoutOnThisRepositoryVerifiesEveryCitation(t *testing.T) {
	e := newEnv(t)
	root := moduleRoot(t)
	mainLine := lineOf(t, filepath.Join(root, "cmd/ouro/main.go"), "func main()")
	runLine := lineOf(t, filepath.Join(root, "agent/agent.go"), "func (a *Agent) Run(")
	grepLine := lineOf(t, filepath.Join(root, ".ci/run"), "go test")
	e.fake(
		scripted.Turn{Text: "Looking around.", ToolCalls: []scripted.ToolCall{
			toolCall("Glob", map[string]any{"pattern": "cmd/*/main.go"}),
			toolCall("Read", map[string]any{"file_path": "cmd/ouro/main.go"}),
			toolCall("Read", map[string]any{"file_path": "agent/agent.go", "offset": runLine - 3, "limit": 10}),
			toolCall("Grep", map[string]any{"pattern": "go test", "path": ".ci", "output_mode": "content"}),
		}},
		scripted.Turn{ExpectContains: "func (a *Agent) Run(", Text: fmt.Sprintf(`## Entry points
- `+"`cmd/ouro/main.go:%d`"+` — main runs the sandbox launcher, then the cobra root command.
## Core modules
- `+"`agent/agent.go:%d`"+` — Agent.Run is the loop every mechanism hangs on.
## Tests
- `+"`.ci/run:%d`"+` — CI runs the test command.
## Risks
- `+"`cmd/ouro/main.go:%d-%d`"+` — anything before the launcher check runs in sandboxed children too.`, mainLine, runLine, grepLine, mainLine, mainLine+2)},
	)
	out, stderr, code := e.run("", "scout", root, "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	// Durations are milliseconds under Claude Code's names (issue 12, item 21).
	if !strings.Contains(out, `"duration_ms"`) || strings.Contains(out, `"duration":`) {
		t.Errorf("scout JSON durations are not in milliseconds:\n%s", out)
	}
	r := decodeScout(t, out)
	if r.Status != "verified" || r.Corrected || len(r.Unverified) != 0 {
		t.Fatalf("result = %+v", r)
	}
	n := 0
	for _, c := range r.Conclusions {
		for _, ci := range c.Citations {
			n++
			if !ci.Verified {
				t.Errorf("citation %s not verified", ci.Raw)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d citations, want 4: %+v", n, r.Conclusions)
	}
	if !strings.Contains(strings.Join(r.FilesSeen, ","), "cmd/ouro/main.go") {
		t.Errorf("files seen = %v", r.FilesSeen)
	}
	// Progress goes to stderr in the readable mode; --json keeps stdout clean.
	if strings.Contains(out, "Glob {") {
		t.Errorf("progress leaked into --json output")
	}
}

// A model that cites a file it never read is sent back once with the citation named;
// when it insists, the citation is marked unverified and the exit status says so.
func TestScoutCitationNeverReadIsCorrectedOnceThenMarkedUnverified(t *testing.T) {
	e := newEnv(t)
	repo := practiceRepo(t, "go-scout-entry")
	answer := "## Entry points\n- `cmd/calc/main.go:1` — the calculator's main package.\n## Core modules\n- `calc/eval.go:12` — Eval evaluates expressions."
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{toolCall("Read", map[string]any{"file_path": "cmd/calc/main.go"})}},
		scripted.Turn{Text: answer},
		scripted.Turn{ExpectContains: "`calc/eval.go:12`: calc/eval.go was never read in this run", Text: answer},
	)
	out, stderr, code := e.run("", "scout", repo)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (unverified)\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"`calc/eval.go:12` [unverified]", "status: unverified", "citations: 1 of 2 verified (after one correction request)"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "cmd/calc/main.go:1` [unverified]") {
		t.Errorf("a citation the run read was marked:\n%s", out)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3 (one correction, not more)", n)
	}
}

// The guarded fixer plays the practice task's reference trajectory: only the allowed
// file changes, and the fix is reported only because the test command passes after it.
func TestFixOnPracticeRepoEditsOnlyAllowedFilesAndProvesItWithTests(t *testing.T) {
	e := newEnv(t)
	repo := practiceRepo(t, "go-fix-stack")
	script := filepath.Join(moduleRoot(t), "eval", "tasks", "go-fix-stack", "scripts", "reference.json")
	testBefore, _ := os.ReadFile(filepath.Join(repo, "stack", "stack_test.go"))
	out, stderr, code := e.run("", "fix", repo, "go test ./... fails; fix the code", "--test", "go test ./...",
		"--allow", "stack/stack.go", "--model", "scripted:"+script, "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	r := decodeScout(t, out)
	if r.Status != "fixed" || r.Fix == nil || !r.Fix.TestPassed || !r.Fix.TestedAfterEdit || strings.Join(r.Fix.Changed, ",") != "stack/stack.go" {
		t.Fatalf("result = %+v fix = %+v", r, r.Fix)
	}
	if after, _ := os.ReadFile(filepath.Join(repo, "stack", "stack_test.go")); string(after) != string(testBefore) {
		t.Error("the test file changed")
	}
	if data, _ := os.ReadFile(filepath.Join(repo, "stack", "stack.go")); !strings.Contains(string(data), "s.items[len(s.items)-1], true") {
		t.Error("the fix is not on disk")
	}
}

// A model that tries to pass by editing the test, then claims success, is refused the
// edit and is not believed: ouro's own test run decides.
func TestFixRefusesTheTestFileAndDoesNotTakeTheModelsWord(t *testing.T) {
	e := newEnv(t)
	repo := practiceRepo(t, "go-fix-stack")
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{toolCall("Read", map[string]any{"file_path": "stack/stack_test.go"})}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{
			toolCall("Edit", map[string]any{"file_path": "stack/stack_test.go", "old_string": "package stack", "new_string": "package stack // ok"}),
			toolCall("Bash", map[string]any{"command": "go test ./... ; rm -rf stack"}),
		}},
		scripted.Turn{ExpectContains: "rm -rf stack", Text: "Fixed: the tests pass now."},
		scripted.Turn{Text: "It is fixed."},
	)
	out, stderr, code := e.run("", "fix", repo, "make the tests pass", "--allow", "stack/stack.go")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (not fixed)\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, `testing with "go test ./..." (detected`) {
		t.Errorf("the detected test command is not announced:\n%s", stderr)
	}
	// The guard's refusals are listed with their reasons (issue 12, item 20).
	for _, want := range []string{"status: not_fixed", "FAILS", "changed: nothing", "refused (2):",
		"Edit: stack/stack_test.go is not among the files this fix may change", "Bash: headless run: go test ./... ; rm -rf stack would need approval"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// ...and the audit records them as denials, not as the rules' allow alone.
	audits, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "audit.jsonl"))
	var denied int
	for _, a := range audits {
		data, _ := os.ReadFile(a)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, `"decision":"deny"`) && strings.Contains(line, `"source":"scout guard"`) {
				denied++
			}
		}
	}
	if denied != 1 {
		data, _ := os.ReadFile(audits[0])
		t.Errorf("the audit records %d guard denials, want 1 (the Edit; the rules refused the Bash line first):\n%s", denied, data)
	}
	reqs := srv.Requests()
	results := reqs[2].Messages[len(reqs[2].Messages)-1].Content
	if len(results) != 2 || !strings.Contains(results[0].ResultText(), "not among the files this fix may change") {
		t.Fatalf("edit of the test file was not refused by the guard: %+v", results)
	}
	if _, err := os.Stat(filepath.Join(repo, "stack")); err != nil {
		t.Fatal("the chained rm ran")
	}
}

// The whole practice set runs offline with the scripted trajectories, and a bad set of
// trajectories against the reference baseline is flagged as a regression.
func TestEvalScriptedRunsTheWholeSetAndFlagsRegressions(t *testing.T) {
	e := newEnv(t)
	tasks := filepath.Join(moduleRoot(t), "eval", "tasks")
	ref := filepath.Join(e.home, "ref")
	out, stderr, code := e.run("", "eval", "--model", "scripted", "--tasks", tasks, "--out", ref)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"SUCCESS", "INVALID CALLS", "OUT OF BOUNDS", "AVG TURNS", "AVG CONTEXT", "FALSE COMPLETIONS", "OVERALL"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	var rep struct {
		Overall struct {
			Runs             int     `json:"runs"`
			SuccessRate      float64 `json:"success_rate"`
			InvalidCalls     int     `json:"invalid_calls"`
			OutOfBounds      int     `json:"out_of_bounds"`
			FalseCompletions int     `json:"false_completions"`
			AvgTurns         float64 `json:"avg_turns"`
			AvgContextTokens float64 `json:"avg_context_tokens"`
		} `json:"overall"`
	}
	data, err := os.ReadFile(filepath.Join(ref, "results.json"))
	if err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("results.json: %v", err)
	}
	o := rep.Overall
	if o.Runs < 10 || o.SuccessRate != 1 || o.InvalidCalls != 0 || o.OutOfBounds != 0 || o.FalseCompletions != 0 || o.AvgTurns == 0 || o.AvgContextTokens == 0 {
		t.Fatalf("overall = %+v (python3 missing skips the Python tasks)", o)
	}
	if html, err := os.ReadFile(filepath.Join(ref, "report.html")); err != nil || strings.Count(string(html), "<svg") != 6 {
		t.Errorf("report.html: %v, %d charts", err, strings.Count(string(html), "<svg"))
	}
	if m, _ := filepath.Glob(filepath.Join(ref, "trajectories", "*.jsonl")); len(m) != o.Runs {
		t.Errorf("%d trajectories kept for %d runs", len(m), o.Runs)
	}

	out, stderr, code = e.run("", "eval", "--model", "scripted", "--script", "false-completion", "--tasks", tasks,
		"--out", filepath.Join(e.home, "bad"), "--baseline", filepath.Join(ref, "results.json"))
	if code != 1 || !strings.Contains(stderr, "REGRESSION") || !strings.Contains(out, "go-fix-duration") {
		t.Fatalf("exit %d, want 1 with a regression\n%s\n%s", code, out, stderr)
	}
}

func TestEvalRejectsBadInput(t *testing.T) {
	e := newEnv(t)
	if _, stderr, code := e.run("", "eval"); code == 0 || !strings.Contains(stderr, "--tasks") {
		t.Errorf("eval with no task set: exit %d, %s", code, stderr)
	}
	tasks := filepath.Join(moduleRoot(t), "eval", "tasks")
	if _, stderr, code := e.run("", "eval", "--tasks", tasks, "--task", "nope"); code == 0 || !strings.Contains(stderr, "go-fix-stack") {
		t.Errorf("eval --task nope: exit %d, %s", code, stderr)
	}
	if _, stderr, code := e.run("", "eval", "--tasks", tasks, "--baseline", filepath.Join(tasks, "README.md")); code == 0 || !strings.Contains(stderr, "README.md") {
		t.Errorf("eval with a baseline that is no report: exit %d, %s", code, stderr)
	}
}

// --tools offers only the tools named (as Claude Code's flag does): a call to any other
// is an unknown tool, and a name that is no tool is refused at startup.
func TestToolsFlagOffersOnlyTheNamedTools(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("touch made")},
		scripted.Turn{ExpectContains: `Unknown tool "Bash". The tools that exist are: Glob, Read.`, Text: "no shell here"},
	)
	out, stderr, code := e.run("", "-p", "make a file", "--tools", "Read,Glob")
	if code != 0 || !strings.Contains(out, "no shell here") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range body.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "Glob,Read" {
		t.Errorf("tools offered = %v", names)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "made")); err == nil {
		t.Error("the command ran")
	}
	if _, stderr, code := e.run("", "-p", "x", "--tools", "Read,Nope"); code == 0 || !strings.Contains(stderr, `no tool "Nope"`) {
		t.Errorf("--tools Nope: exit %d, %s", code, stderr)
	}
}

// With a real model name, eval measures the model through the real SDK: here the fake
// server speaks the Anthropic wire protocol and plays the task's reference answers.
func TestEvalWithAModelNameGoesThroughTheProvider(t *testing.T) {
	e := newEnv(t)
	tasks := filepath.Join(moduleRoot(t), "eval", "tasks")
	script, err := scripted.Load(filepath.Join(tasks, "go-scout-entry", "scripts", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := e.fake(script.Turns...)
	out, stderr, code := e.run("", "eval", "--model", "claude-sonnet-5-5", "--tasks", tasks, "--task", "go-scout-entry",
		"--out", filepath.Join(e.home, "real"), "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var rep struct {
		Model   string `json:"model"`
		Overall struct {
			Runs        int     `json:"runs"`
			SuccessRate float64 `json:"success_rate"`
			CostUSD     float64 `json:"cost_usd"`
		} `json:"overall"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Model != "claude-sonnet-5-5" || rep.Overall.Runs != 1 || rep.Overall.SuccessRate != 1 || rep.Overall.CostUSD <= 0 {
		t.Fatalf("report = %+v", rep)
	}
	if n := len(srv.Requests()); n != len(script.Turns) {
		t.Errorf("%d requests reached the provider, want %d", n, len(script.Turns))
	}
}

// ouro fix --dry-run plays the same reference trajectory with no write permission: the
// fix is shown as a proposal and the repository is untouched.
func TestFixDryRunShowsTheProposalAndWritesNothing(t *testing.T) {
	e := newEnv(t)
	repo := practiceRepo(t, "go-fix-stack")
	before, _ := os.ReadFile(filepath.Join(repo, "stack", "stack.go"))
	script := filepath.Join(moduleRoot(t), "eval", "tasks", "go-fix-stack", "scripts", "reference.json")
	out, stderr, code := e.run("", "fix", repo, "fix Peek", "--test", "go test ./...", "--allow", "stack/stack.go",
		"--model", "scripted:"+script, "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"status: proposed", "proposed (not written", "    - \treturn s.items[0], true", "    + \treturn s.items[len(s.items)-1], true"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(repo, "stack", "stack.go")); string(after) != string(before) {
		t.Error("a dry run changed stack.go")
	}
}

// ouro scout on a practice repository with its task's question and reference answers:
// every citation verified.
func TestScoutOnAPracticeRepoVerifiesEveryCitation(t *testing.T) {
	e := newEnv(t)
	repo := practiceRepo(t, "go-scout-entry")
	task := filepath.Join(moduleRoot(t), "eval", "tasks", "go-scout-entry")
	var spec struct {
		Prompt string `json:"prompt"`
	}
	data, err := os.ReadFile(filepath.Join(task, "task.json"))
	if err != nil || json.Unmarshal(data, &spec) != nil {
		t.Fatalf("task.json: %v", err)
	}
	out, stderr, code := e.run("", "scout", repo, "-q", spec.Prompt, "--model", "scripted:"+filepath.Join(task, "scripts", "reference.json"), "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	r := decodeScout(t, out)
	n := 0
	for _, c := range r.Conclusions {
		for _, ci := range c.Citations {
			n++
			if !ci.Verified {
				t.Errorf("citation %s not verified", ci.Raw)
			}
		}
	}
	if r.Status != "verified" || r.Corrected || n == 0 {
		t.Fatalf("status %q, corrected %v, %d citations", r.Status, r.Corrected, n)
	}
}
