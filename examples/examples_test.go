// Package examples_test runs every example program against its scripted model (no key,
// no network) and checks that it shows what it is there to show.
package examples_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	// The packages the examples are built from: importing them makes go test's cache
	// notice a change in any of them (TestExamplesImports keeps this list complete).
	_ "github.com/ouroagent/ouro/agent"
	_ "github.com/ouroagent/ouro/background"
	_ "github.com/ouroagent/ouro/compact"
	_ "github.com/ouroagent/ouro/cron"
	_ "github.com/ouroagent/ouro/goal"
	_ "github.com/ouroagent/ouro/harness"
	_ "github.com/ouroagent/ouro/hook"
	_ "github.com/ouroagent/ouro/llm"
	_ "github.com/ouroagent/ouro/llm/anthropic"
	_ "github.com/ouroagent/ouro/llm/scripted"
	_ "github.com/ouroagent/ouro/mailbox"
	_ "github.com/ouroagent/ouro/mcpclient"
	_ "github.com/ouroagent/ouro/mcpconf"
	_ "github.com/ouroagent/ouro/mechanism"
	_ "github.com/ouroagent/ouro/memory"
	_ "github.com/ouroagent/ouro/notify"
	_ "github.com/ouroagent/ouro/permission"
	_ "github.com/ouroagent/ouro/sandbox"
	_ "github.com/ouroagent/ouro/scout"
	_ "github.com/ouroagent/ouro/settings"
	_ "github.com/ouroagent/ouro/skill"
	_ "github.com/ouroagent/ouro/subagent"
	_ "github.com/ouroagent/ouro/task"
	_ "github.com/ouroagent/ouro/task/sqlitestore"
	_ "github.com/ouroagent/ouro/team"
	_ "github.com/ouroagent/ouro/todo"
	_ "github.com/ouroagent/ouro/tool"
	_ "github.com/ouroagent/ouro/tools"
	_ "github.com/ouroagent/ouro/workflow"
	_ "github.com/ouroagent/ouro/workflow/engine"
	_ "github.com/ouroagent/ouro/workspace"
)

// The examples run as separate programs, so their packages are no dependency of this
// test unless it imports them; without that a cached result would survive a change in
// the code an example runs.
func TestExamplesImports(t *testing.T) {
	uses, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	own, err := exec.Command("go", "list", "-f", `{{join .XTestImports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	have := strings.Fields(string(own))
	for _, p := range strings.Fields(string(uses)) {
		if strings.HasPrefix(p, "github.com/ouroagent/ouro/") && !slices.Contains(have, p) {
			t.Errorf("an example imports %s: add it to the imports of examples_test.go", p)
		}
	}
}

// example is one program and what its output must hold.
type example struct {
	// anywhere runs it from an unrelated folder instead of the module root.
	anywhere bool
	want     []string
	// check, when set, looks further at the output.
	check func(t *testing.T, out string)
}

var examples = map[string]example{
	"s01_agent_loop": {want: []string{`$ {"command":"ls"}`, "go.mod\n", "(scripted) Those are the files here.", "[completed after 2 turns]"}},
	"s02_tool_use": {want: []string{
		`── Read {"file_path":"go.mod","limit":5} (error=false)`, "module github.com/ouroagent/ouro",
		"examples/s02_tool_use/main.go",
		`── Read {"file_path":"/etc/passwd","limit":"ten"} (error=true)`, "Invalid input for Read; the call was not run",
		"[completed after 4 turns]",
	}},
	"s03_permission": {want: []string{
		"── go test ./...  (error=false)",
		"── rm -rf build  (error=true)\nPermission denied: `rm -rf build` is denied by the rule Bash(rm *)",
		"── git push origin main  (error=true)", "nobody is there to give it",
		"── ls && rm -rf build  (error=true)",
		"allow go test ./...", "deny  git push origin main   by headless",
		"build/ is still there.",
	}},
	"s04_hooks": {want: []string{
		"PostToolUse hook context: Bash returned 22 bytes.",
		"a PreToolUse hook blocked Bash rm -rf build: no rm here",
		"bash.log, written by the command hook:\nls\ncat go.mod\nrm -rf build\n",
	}},
	"s05_todo": {want: []string{
		"TodoWrite refused:", "2 items are in_progress",
		"── reminder attached to request 8 (this request only):", "has not been updated for 3 tool rounds",
		"[completed after 10 turns]", "restored (0 open):",
	}},
	"s06_subagent": {want: []string{
		"[toolu_01_01]", "[toolu_01_02]", "child completed after 2 turns", "[subagent Explore: 2 turns",
		"child transcript: Explore-toolu_01_01.jsonl", "child transcript: Explore-toolu_01_02.jsonl",
		"[completed after 2 turns;",
	}},
	"s07_skills": {want: []string{
		`── onInvoke: release-notes asks for ["Bash(git log:*)" "Read"]`, "Write release notes for: v0.7",
		"1\t# House style", "[completed after 3 turns]", "first request: skill listed true, body absent true",
	}},
	"s08_compact": {want: []string{
		"── compaction (auto, clear)", "── compaction (auto, summary)", "── compaction (manual, summary)",
		"I read all 40 files; each defines f.\n[completed after 41 turns;", "history now 2 messages",
	}, check: func(t *testing.T, out string) {
		m := regexp.MustCompile(`peak ~(\d+) tokens of a (\d+)-token window`).FindStringSubmatch(out)
		if m == nil {
			t.Fatal("no peak line")
		}
		peak, _ := strconv.Atoi(m[1])
		window, _ := strconv.Atoi(m[2])
		if peak <= 0 || peak >= window {
			t.Errorf("peak %d tokens, window %d: compaction did not keep the requests inside it", peak, window)
		}
	}},
	"s11_background": {want: []string{
		"Command running in background with ID: b", "You will be notified when it completes.",
		"meanwhile: nothing to read yet",
		"── the model stopped while 1 task(s) run: waiting for them",
		"<status>completed</status>\n   <summary>Background command \"Slow build\" completed (exit code 0)</summary>",
		"Last lines of output:\n   build finished",
		"[completed after 4 turns]",
		"completed (exit code 0)       Slow build",
	}, check: func(t *testing.T, out string) {
		if n := strings.Count(out, "<task-notification>"); n != 1 {
			t.Errorf("the notification reached the conversation %d times", n)
		}
	}},
	"s09_memory": {want: []string{
		"(imported by", "Errors are wrapped with %w.",
		"== saving a secret: memory: record looks like it contains a secret",
		"== recalled db-engine (session s1 turn 3)",
		"== session 2's first request ends with:\nadd a created_at column to users<system-reminder>",
		"The database is Postgres 16",
	}},
	"s12_cron": {anywhere: true, want: []string{
		`── CronCreate {"cron":"0 25 * * *"`, "(error=true)", "above maximum (23)", `e.g. "*/5 * * * *"`,
		`"cron": "0 10 * * *"`, "── 09:58, restarted: 0 fired", `<scheduled-task id="`, "not typed by the user",
		"(scripted) Yesterday: 3 commits", "── jobs left after the one-shot ran: 0",
		"planted1 in <project>/.ouro/scheduled_tasks.json is not run", "── 10:05: 1 fired in all; awaiting approval: 1",
	}},
	"s15_harness": {want: []string{
		`── TaskCreate {"description":"Start the project's notes.","subject":"Write NOTES.md"} (error=false)`,
		`── Write {"content":"# Notes\n","file_path":"NOTES.md"} (error=false)`,
		`── Bash {"command":"ls -a"} (error=false)`,
		"Permission denied: `rm -rf .` is denied by the rule Bash(rm *)",
		`── TaskUpdate {"status":"completed","taskId":"1"} (error=false)`,
		"[completed after 6 turns]", `NOTES.md: "# Notes\n"`, "audit: audit.jsonl",
	}},
	"s17_goal": {want: []string{
		"model: Bumped the version to 2.0. Done.",
		"goal check 1/8: not met: The check command `grep -qx 2.0 VERSION` did not pass",
		"goal check 2/8: not met: VERSION holds 1.9, not 2.0",
		"goal check 3/8: met:", "[completed after 5 turns; the evaluator's", `VERSION now holds "2.0"`,
		"goal check 1/8: impossible: one line cannot be both 1.0 and 3.0",
		"[failed: the goal cannot be met: one line cannot be both 1.0 and 3.0]",
	}},
	"s16_workflow": {want: []string{
		"== Review", "== Verify", "log: 3 of 3 findings hold", `"dimension":"tests","index":2`,
		`"verdict":{"valid":true,"reason":"(scripted) the finding holds"}`, "[completed: 6 agents, 0 replayed]",
		"[resumed completed: 6 agents, 6 replayed, 0 model calls, same result: true]",
		"a meta that calls something: meta must be a pure literal",
	}},
	"s10_tasks": {want: []string{
		"Task #3 created successfully: Update the docs",
		"TaskUpdate failed: #3 blocking #1 would make a cycle: #1 → #2 → #3 → #1",
		"#3 [pending] Update the docs [blocked by #2]",
		"TaskUpdate failed: task #2 is blocked by #1 (pending)",
		"Updated task #1 status\n   Unblocked: #2 Write the migration",
		"   #2 [pending] Write the migration\n",
		`#2's note: the claim by "worker-2" lapsed`,
	}},
	"s13_teams": {want: []string{
		`Spawned teammate "alice"`, `Spawned teammate "bob"`,
		"Completed task #1: Write the parser. Unblocked: #2 Write the parser's tests.",
		"Completed task #2: Write the parser's tests.\n", "Completed task #3: Write the docs.\n",
		"Shutdown request shutdown-alice-1 sent to alice", `type="shutdown_response" request_id="shutdown-bob-1" approve="true"`,
		"#3 [completed] Write the docs (owner: ", "[completed after ",
	}, check: func(t *testing.T, out string) {
		// Three completion reports and two shutdown answers reach the lead, each once;
		// their ids depend on which teammate finished first.
		seen := map[string]int{}
		for _, m := range regexp.MustCompile(`<teammate-message id="(\d+)"`).FindAllStringSubmatch(out, -1) {
			seen[m[1]]++
		}
		if len(seen) != 5 {
			t.Errorf("%d distinct messages reached the lead, want 5: %v", len(seen), seen)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("message %s reached the lead %d times", id, n)
			}
		}
	}},
	"s14_mcp": {want: []string{
		"server words   connected mcp__words__count_words", "server broken  failed    cannot start",
		`── mcp__words__count_words {"text":"to be or not to be"} (error=false)` + "\n6 words",
		`── mcp__words__count_words {"text":6} (error=true)`, "Invalid input for mcp__words__count_words; the call was not run",
		"[completed after 3 turns]",
	}},
	"scout": {anywhere: true, want: []string{
		`── Read {"file_path":"main.go"}`,
		"── sent back: These citations name lines this run never saw", "- loop/loop.go:6: loop/loop.go was never read in this run",
		`── Read {"file_path":"loop/loop.go"}`,
		"- `loop/loop.go:6` — loop.Run, the core loop.\n[completed after 4 turns]",
	}, check: func(t *testing.T, out string) {
		if strings.Contains(out, "unverified:") {
			t.Error("a citation is still unverified after the model was sent back")
		}
	}},
}

// exampleDirs are the example programs: the directories here with a main.go.
func exampleDirs() ([]string, error) {
	entries, err := os.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(e.Name(), "main.go")); e.IsDir() && err == nil {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs, nil
}

// exampleBin holds the examples TestMain built, or buildErr says why it could not.
var exampleBin, buildErr = "", error(nil)

// TestMain builds every example once, before m.Run starts the -timeout clock: a cold
// build on a busy 2-core machine must not eat the tests' time.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ouro-examples-")
	if err != nil {
		panic(err)
	}
	exampleBin = dir
	dirs, err := exampleDirs()
	if err != nil {
		panic(err)
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, d := range dirs {
		args = append(args, "./"+d)
	}
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("go build: %v\n%s", err, out)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestExamples(t *testing.T) {
	dirs, err := exampleDirs()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, ok := examples[d]; !ok {
			t.Errorf("examples/%s has no case in this test: say what its output must show", d)
		}
	}
	for name := range examples {
		if !slices.Contains(dirs, name) {
			t.Errorf("examples/%s is gone; remove its case", name)
		}
	}
	if t.Failed() {
		return
	}

	if buildErr != nil {
		t.Fatal(buildErr)
	}
	bin := exampleBin
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// No key: every example falls back to its scripted model.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANTHROPIC_") && !strings.HasPrefix(kv, "OPENAI_") {
			env = append(env, kv)
		}
	}

	for _, name := range dirs {
		ex := examples[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, name))
			cmd.Dir, cmd.Env = root, env
			if ex.anywhere {
				cmd.Dir = t.TempDir()
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s failed: %v\nstdout:\n%s\nstderr:\n%s", name, err, stdout.String(), stderr.String())
			}
			out := stdout.String()
			for _, w := range ex.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q", w)
				}
			}
			if ex.check != nil {
				ex.check(t, out)
			}
			if t.Failed() {
				t.Logf("output:\n%s\nstderr:\n%s", out, stderr.String())
			}
		})
	}
}

// The README's test command is the one a newcomer types: .ci/run must run exactly it.
func TestReadmeTestCommandIsWhatCIRuns(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md does not open with a sh block")
	}
	var test string
	for _, l := range strings.Split(string(m[1]), "\n") {
		if cmd, _, _ := strings.Cut(l, "#"); strings.HasPrefix(cmd, "go test") {
			test = strings.TrimSpace(cmd)
		}
	}
	if test == "" {
		t.Fatalf("the README's first block has no go test command:\n%s", m[1])
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(test) + `$`).Match(ci) {
		t.Errorf(".ci/run does not run the README's test command %q as a line of its own", test)
	}
	if !strings.Contains(test, "-timeout") {
		t.Errorf("%q carries no -timeout: go test's default 10 minutes per package is too short cold on 2 cores", test)
	}
}
