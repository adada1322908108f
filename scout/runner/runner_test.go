package runner_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/scout"
	"github.com/ouroagent/ouro/scout/runner"
)

var gocache string

func TestMain(m *testing.M) {
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		gocache = strings.TrimSpace(string(out))
	}
	os.Exit(m.Run())
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const calcGo = `package calc

// Add returns a plus b.
func Add(a, b int) int {
	return a - b
}
`

const calcTestGo = `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d, want 5", got)
	}
}
`

const mainGo = `package main

import (
	"fmt"

	"example.com/calc/calc"
)

func main() {
	fmt.Println(calc.Add(1, 2))
}
`

// newRepo makes a small Go repository and isolates the run from the user's settings.
func newRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	if gocache != "" {
		t.Setenv("GOCACHE", gocache)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":            "module example.com/calc\n\ngo 1.21\n",
		"main.go":           mainGo,
		"calc/calc.go":      calcGo,
		"calc/calc_test.go": calcTestGo,
	})
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

func in(t *testing.T, v map[string]any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func call(t *testing.T, name string, v map[string]any) scripted.ToolCall {
	return scripted.ToolCall{Name: name, Input: in(t, v)}
}

func run(t *testing.T, dir string, cfg scout.Config, turns ...scripted.Turn) scout.Result {
	t.Helper()
	cfg.Dir = dir
	if cfg.Prompt == "" && cfg.Fix == nil && !surveyMode[t.Name()] {
		// A question, not the standard survey, so the answers need no fixed sections.
		cfg.Prompt = "Where is the calculator implemented?"
	}
	cfg.Provider = scripted.New(&scripted.Script{Turns: turns})
	cfg.Home = t.TempDir()
	cfg.Warn = io.Discard
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func turn(text string, calls ...scripted.ToolCall) scripted.Turn {
	return scripted.Turn{Text: text, ToolCalls: calls}
}

func TestVerifiedWhenEveryCitationWasRead(t *testing.T) {
	dir := newRepo(t)
	res := run(t, dir, scout.Config{},
		turn("", call(t, "Read", map[string]any{"file_path": "calc/calc.go"})),
		turn("## Core modules\n- Add is the calculator `calc/calc.go:4-6`\n- Its doc comment `calc/calc.go:3`\n"),
	)
	if res.Status != scout.StatusVerified || !res.OK() {
		t.Fatalf("status = %q (%s), want verified", res.Status, res.Reason)
	}
	if res.Corrected {
		t.Error("Corrected = true, but the first answer was supported")
	}
	if res.Outcome.Turns != 2 {
		t.Errorf("Outcome.Turns = %d, want 2", res.Outcome.Turns)
	}
	if len(res.Unverified) != 0 {
		t.Errorf("Unverified = %+v, want none", res.Unverified)
	}
	n := 0
	for _, c := range res.Conclusions {
		for _, cit := range c.Citations {
			n++
			if !cit.Verified {
				t.Errorf("citation %s not verified: %s", cit.Raw, cit.Problem)
			}
		}
	}
	if n != 2 {
		t.Errorf("found %d citations, want 2: %+v", n, res.Conclusions)
	}
	if !slices.Contains(res.FilesSeen, "calc/calc.go") || slices.Contains(res.FilesSeen, "main.go") {
		t.Errorf("FilesSeen = %v, want calc/calc.go only", res.FilesSeen)
	}
	if res.SessionID == "" || res.Transcript == "" {
		t.Errorf("session %q transcript %q: want both", res.SessionID, res.Transcript)
	}
}

func TestGrepEvidenceVerifies(t *testing.T) {
	dir := newRepo(t)
	res := run(t, dir, scout.Config{},
		turn("", call(t, "Grep", map[string]any{"pattern": "func main", "output_mode": "content", "-n": true})),
		turn("## Entry points\n- the program starts here `main.go:9`\n"),
	)
	if res.Status != scout.StatusVerified {
		t.Fatalf("status = %q (%s), want verified", res.Status, res.Reason)
	}
	if !slices.Contains(res.FilesSeen, "main.go") {
		t.Errorf("FilesSeen = %v, want main.go", res.FilesSeen)
	}
}

func TestCorrectionNamesUnreadCitationThenVerified(t *testing.T) {
	dir := newRepo(t)
	res := run(t, dir, scout.Config{},
		turn("- Add subtracts `calc/calc.go:5`\n"),
		scripted.Turn{ExpectContains: "`calc/calc.go:5`",
			ToolCalls: []scripted.ToolCall{call(t, "Read", map[string]any{"file_path": "calc/calc.go"})}},
		turn("- Add subtracts, a bug `calc/calc.go:5`\n"),
	)
	if res.Status != scout.StatusVerified {
		t.Fatalf("status = %q (%s), want verified", res.Status, res.Reason)
	}
	if !res.Corrected {
		t.Error("Corrected = false, but the model was sent back")
	}
	if res.Outcome.Turns != 3 {
		t.Errorf("Outcome.Turns = %d, want 3", res.Outcome.Turns)
	}
	if !strings.Contains(res.Report, "a bug") {
		t.Errorf("Report = %q, want the second answer", res.Report)
	}
}

func TestCorrectionIgnoredIsUnverified(t *testing.T) {
	dir := newRepo(t)
	answer := "- main prints a sum `main.go:10`\n- Add subtracts `calc/calc.go:5`\n"
	res := run(t, dir, scout.Config{},
		turn("", call(t, "Read", map[string]any{"file_path": "main.go"})),
		turn(answer),
		scripted.Turn{ExpectContains: "`calc/calc.go:5`", Text: answer},
		turn("- sent back a second time `main.go:10`\n"), // must never be asked for
	)
	if res.Status != scout.StatusUnverified || res.OK() {
		t.Fatalf("status = %q, want unverified", res.Status)
	}
	if res.Outcome.Turns != 3 {
		t.Errorf("Outcome.Turns = %d, want 3 (sent back exactly once)", res.Outcome.Turns)
	}
	if !res.Corrected {
		t.Error("Corrected = false")
	}
	if len(res.Unverified) != 1 || res.Unverified[0].Raw != "calc/calc.go:5" || res.Unverified[0].Problem == "" {
		t.Fatalf("Unverified = %+v, want calc/calc.go:5 with a problem", res.Unverified)
	}
	if !strings.Contains(res.Reason, "calc/calc.go:5") || strings.Contains(res.Reason, "main.go:10") {
		t.Errorf("Reason = %q, want it to name calc/calc.go:5 only", res.Reason)
	}
}

func TestCitationOfMissingFileIsSentBack(t *testing.T) {
	dir := newRepo(t)
	res := run(t, dir, scout.Config{},
		turn("", call(t, "Read", map[string]any{"file_path": "main.go"})),
		turn("- main `main.go:10`\n- helpers `util/helpers.go:3`\n"),
		scripted.Turn{ExpectContains: "util/helpers.go", Text: "- main `main.go:10`\n"},
	)
	if res.Status != scout.StatusVerified || !res.Corrected {
		t.Fatalf("status = %q (%s) corrected=%v, want verified after one correction", res.Status, res.Reason, res.Corrected)
	}
}

func TestNoCitations(t *testing.T) {
	dir := newRepo(t)
	t.Run("still none", func(t *testing.T) {
		res := run(t, dir, scout.Config{},
			turn("It is a small calculator."),
			scripted.Turn{ExpectContains: "cites no file location", Text: "Still a small calculator."},
			turn("- asked twice `main.go:1`"),
		)
		if res.Status != scout.StatusUnverified || !strings.Contains(res.Reason, "cites no file location") {
			t.Fatalf("status = %q (%s), want unverified, cites no file location", res.Status, res.Reason)
		}
		if res.Outcome.Turns != 2 || !res.Corrected {
			t.Errorf("turns = %d corrected = %v, want 2, true", res.Outcome.Turns, res.Corrected)
		}
	})
	t.Run("then cites", func(t *testing.T) {
		res := run(t, dir, scout.Config{},
			turn("It is a small calculator."),
			scripted.Turn{ExpectContains: "path:line",
				ToolCalls: []scripted.ToolCall{call(t, "Read", map[string]any{"file_path": "go.mod"})}},
			turn("- the module `go.mod:1`"),
		)
		if res.Status != scout.StatusVerified {
			t.Fatalf("status = %q (%s), want verified", res.Status, res.Reason)
		}
	})
}

func TestOutsideWorkspaceDenied(t *testing.T) {
	dir := newRepo(t)
	outside := t.TempDir()
	const secret = "s3cr3t-outside-content"
	writeFiles(t, outside, map[string]string{"secret.txt": secret + "\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, filepath.Join(outside, "secret.txt"))
	if err != nil {
		t.Fatal(err)
	}
	calls := []scripted.ToolCall{
		call(t, "Read", map[string]any{"file_path": filepath.Join(outside, "secret.txt")}),
		call(t, "Read", map[string]any{"file_path": rel}),
		call(t, "Read", map[string]any{"file_path": "link/secret.txt"}),
		call(t, "Grep", map[string]any{"pattern": "s3cr3t", "path": outside, "output_mode": "content"}),
		call(t, "Glob", map[string]any{"pattern": "*", "path": ".."}),
	}
	res := run(t, dir, scout.Config{},
		turn("", calls...),
		scripted.Turn{ExpectContains: "outside the workspace", ToolCalls: []scripted.ToolCall{call(t, "Read", map[string]any{"file_path": "go.mod"})}},
		turn("- the module `go.mod:1`"),
	)
	if res.Outcome.Status != "completed" || res.Status != scout.StatusVerified {
		t.Fatalf("status = %q / %q (%s), want the run to complete and verify", res.Outcome.Status, res.Status, res.Reason)
	}
	if len(res.Outcome.Denials) != len(calls) {
		t.Fatalf("Denials = %+v, want %d", res.Outcome.Denials, len(calls))
	}
	for _, d := range res.Outcome.Denials {
		if !strings.Contains(d.Reason, "outside") {
			t.Errorf("denial of %s %s: reason %q does not say outside", d.ToolName, d.ToolInput, d.Reason)
		}
	}
	if slices.ContainsFunc(res.FilesSeen, func(f string) bool { return strings.Contains(f, "secret") }) {
		t.Errorf("FilesSeen = %v, includes the outside file", res.FilesSeen)
	}
	data, err := os.ReadFile(res.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(data), secret) > 0 {
		t.Error("the outside file's content reached the transcript")
	}
}

func TestOnlyReadOnlyToolsOffered(t *testing.T) {
	dir := newRepo(t)
	res := run(t, dir, scout.Config{},
		turn("",
			call(t, "Bash", map[string]any{"command": "rm main.go"}),
			call(t, "Edit", map[string]any{"file_path": "main.go", "old_string": "package main", "new_string": "package gone"}),
			call(t, "Write", map[string]any{"file_path": "new.go", "content": "package x\n"}),
		),
		turn("", call(t, "Read", map[string]any{"file_path": "main.go"})),
		turn("- the entry point `main.go:1`"),
	)
	if res.Status != scout.StatusVerified {
		t.Fatalf("status = %q (%s), want verified", res.Status, res.Reason)
	}
	data, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil || string(data) != mainGo {
		t.Fatalf("main.go changed (err %v): %q", err, data)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.go")); !os.IsNotExist(err) {
		t.Errorf("new.go was written (stat err %v)", err)
	}
	tr, err := os.ReadFile(res.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(tr), `"is_error":true`); n < 3 {
		t.Errorf("transcript has %d error results, want the 3 write calls refused", n)
	}
}

func TestTurnLimit(t *testing.T) {
	dir := newRepo(t)
	glob := func() scripted.Turn { return turn("", call(t, "Glob", map[string]any{"pattern": "**/*.go"})) }
	res := run(t, dir, scout.Config{MaxTurns: 2}, glob(), glob(), glob(), glob())
	if res.Status != "budget_exhausted" || res.Outcome.Budget != "turns" {
		t.Fatalf("status = %q budget %q (%s), want budget_exhausted on turns", res.Status, res.Outcome.Budget, res.Reason)
	}
	if res.OK() || res.Reason == "" {
		t.Errorf("OK = %v reason %q", res.OK(), res.Reason)
	}
	if res.Outcome.Turns > 2 {
		t.Errorf("Outcome.Turns = %d, want at most 2", res.Outcome.Turns)
	}
}

func TestBadConfig(t *testing.T) {
	dir := newRepo(t)
	file := filepath.Join(dir, "main.go")
	prov := func() scout.Config {
		return scout.Config{Dir: dir, Home: t.TempDir(), Warn: io.Discard,
			Provider: scripted.New(&scripted.Script{Turns: []scripted.Turn{turn("- x `main.go:1`")}})}
	}
	cases := []struct {
		name string
		edit func(*scout.Config)
		want string
	}{
		{"dir is a file", func(c *scout.Config) { c.Dir = file }, "not a directory"},
		{"dir missing", func(c *scout.Config) { c.Dir = filepath.Join(dir, "nope") }, "not a directory"},
		{"fix without test", func(c *scout.Config) { c.Prompt = "fix Add"; c.Fix = &scout.FixConfig{Test: "  "} }, "--test"},
		{"fix without prompt", func(c *scout.Config) { c.Prompt = " \n"; c.Fix = &scout.FixConfig{Test: "go test ./..."} }, "what to fix"},
		{"test not plain", func(c *scout.Config) { c.Prompt = "fix"; c.Fix = &scout.FixConfig{Test: "go test ./... | tee log"} }, "--test"},
		{"test with variable", func(c *scout.Config) { c.Prompt = "fix"; c.Fix = &scout.FixConfig{Test: "go test $PKG"} }, "expansions"},
		{"bad glob", func(c *scout.Config) {
			c.Prompt = "fix"
			c.Fix = &scout.FixConfig{Test: "go test ./...", Allowed: []string{"calc/[.go"}}
		}, "not a valid glob"},
		{"extension without dot", func(c *scout.Config) {
			c.Prompt = "fix"
			c.Fix = &scout.FixConfig{Test: "go test ./...", Extensions: []string{"go"}}
		}, "must start with a dot"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := prov()
			tc.edit(&cfg)
			_, err := runner.Run(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// newTextRepo makes a repository whose "tests" are a shell script: check.sh passes when
// calc.txt says fixed. It is fast, so most guard tests use it.
func newTextRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"calc.txt":  "status: broken\ndup\ndup\nend\n",
		"other.txt": "other\n",
		"conf.json": "{\"status\": \"broken\"}\n",
		"check.sh":  "grep -q 'status: fixed' calc.txt || { echo 'calc.txt is not fixed'; exit 1; }\n",
	})
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func denialOf(res scout.Result, field, value string) (string, bool) {
	for _, d := range res.Outcome.Denials {
		var m map[string]any
		_ = json.Unmarshal(d.ToolInput, &m)
		if m[field] == value {
			return d.Reason, true
		}
	}
	return "", false
}

func edit(t *testing.T, file, old, repl string) scripted.ToolCall {
	return call(t, "Edit", map[string]any{"file_path": file, "old_string": old, "new_string": repl})
}

func TestFixEditGuard(t *testing.T) {
	dir := newTextRepo(t)
	cfg := scout.Config{Prompt: "make check.sh pass", Fix: &scout.FixConfig{
		Test: "sh check.sh", Allowed: []string{"calc.txt", "./conf.json"}, Extensions: []string{".txt"}, MaxDiffLines: 3,
	}}
	res := run(t, dir, cfg,
		turn("", call(t, "Read", map[string]any{"file_path": "calc.txt"}),
			call(t, "Read", map[string]any{"file_path": "other.txt"}),
			call(t, "Read", map[string]any{"file_path": "conf.json"})),
		turn("",
			edit(t, "other.txt", "other", "changed"),
			edit(t, "conf.json", "broken", "fixed"),
			call(t, "Edit", map[string]any{"file_path": "calc.txt", "old_string": "broken", "new_string": "fixed", "replace_all": true}),
			edit(t, "calc.txt", "dup", "DUP"),
			edit(t, "calc.txt", "status: broken\n", "status: fixed\n"),
			edit(t, "calc.txt", "end\n", "END\n"),
		),
		turn("", call(t, "Bash", map[string]any{"command": "sh check.sh"})),
		turn("- calc.txt now says fixed `calc.txt:1`"),
	)
	if res.Status != scout.StatusFixed || res.Fix == nil {
		t.Fatalf("status = %q (%s), want fixed", res.Status, res.Reason)
	}
	if r, ok := denialOf(res, "new_string", "changed"); !ok || !strings.Contains(r, "calc.txt, ./conf.json") {
		t.Errorf("edit of other.txt: denied %v, reason %q; want the allowed files named", ok, r)
	}
	if r, ok := denialOf(res, "file_path", "conf.json"); !ok || !strings.Contains(r, `".json"`) {
		t.Errorf("edit of conf.json: denied %v, reason %q; want the file type named", ok, r)
	}
	if r, ok := denialOf(res, "new_string", "DUP"); !ok || !strings.Contains(r, "occurs 2 times") {
		t.Errorf("ambiguous edit: denied %v, reason %q", ok, r)
	}
	if r, ok := denialOf(res, "new_string", "END\n"); !ok || !strings.Contains(r, "at most 3 lines") {
		t.Errorf("edit beyond the diff limit: denied %v, reason %q", ok, r)
	}
	replaceAll := false
	for _, d := range res.Outcome.Denials {
		if strings.Contains(d.Reason, "replace_all") {
			replaceAll = true
		}
	}
	if !replaceAll || len(res.Outcome.Denials) != 5 {
		t.Errorf("denials = %+v, want 5 including replace_all", res.Outcome.Denials)
	}
	if got := readFile(t, dir, "other.txt"); got != "other\n" {
		t.Errorf("other.txt = %q, changed", got)
	}
	if got := readFile(t, dir, "conf.json"); !strings.Contains(got, "broken") {
		t.Errorf("conf.json = %q, changed", got)
	}
	if got := readFile(t, dir, "calc.txt"); got != "status: fixed\ndup\ndup\nend\n" {
		t.Errorf("calc.txt = %q, want only the allowed edit", got)
	}
	if !slices.Equal(res.Fix.Changed, []string{"calc.txt"}) || res.Fix.DiffLines != 2 || !res.Fix.TestedAfterEdit || !res.Fix.TestPassed {
		t.Errorf("Fix = %+v", *res.Fix)
	}
}

func TestFixBashOnlyTheTestCommand(t *testing.T) {
	dir := newTextRepo(t)
	writeFiles(t, dir, map[string]string{"x/keep": "keep\n"})
	cfg := scout.Config{Prompt: "make check.sh pass", Fix: &scout.FixConfig{Test: "sh check.sh"}}
	denied := []string{
		"rm -rf x",
		"sh check.sh && rm calc.txt",
		"sh check.sh; rm calc.txt",
		"sh check.sh | tee out",
		"sh check.sh > out",
		"sh check.sh $(touch pwned)",
		"sh check.sh `touch pwned`",
		"sh check.sh $HOME",
		"FOO=1 sh check.sh",
		"sh check.sh &",
		"sh other.sh",
		"sh",
	}
	var calls []scripted.ToolCall
	for _, c := range denied {
		calls = append(calls, call(t, "Bash", map[string]any{"command": c}))
	}
	res := run(t, dir, cfg,
		turn("", calls...),
		turn("", call(t, "Bash", map[string]any{"command": "sh check.sh --verbose 'quoted arg'"})),
		turn("", call(t, "Read", map[string]any{"file_path": "calc.txt"})),
		turn("", edit(t, "calc.txt", "status: broken", "status: fixed")),
		turn("", call(t, "Bash", map[string]any{"command": "sh check.sh"})),
		turn("- fixed `calc.txt:1`"),
	)
	if res.Status != scout.StatusFixed {
		t.Fatalf("status = %q (%s), want fixed", res.Status, res.Reason)
	}
	for _, c := range denied {
		if _, ok := denialOf(res, "command", c); !ok {
			t.Errorf("%q was not denied", c)
		}
	}
	for _, c := range []string{"sh check.sh --verbose 'quoted arg'", "sh check.sh"} {
		if r, ok := denialOf(res, "command", c); ok {
			t.Errorf("%q was denied: %s", c, r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x", "keep")); err != nil {
		t.Errorf("x/keep: %v", err)
	}
	for _, f := range []string{"out", "pwned"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s exists (stat err %v): a denied command ran", f, err)
		}
	}
	if !strings.Contains(readFile(t, dir, "calc.txt"), "fixed") {
		t.Error("calc.txt was removed or not edited")
	}
}

func TestFixRemindsToTestThenFixed(t *testing.T) {
	dir := newRepo(t)
	cfg := scout.Config{Prompt: "make TestAdd pass", Fix: &scout.FixConfig{Test: "go test ./...", Allowed: []string{"calc/*.go"}}}
	res := run(t, dir, cfg,
		turn("", call(t, "Read", map[string]any{"file_path": "calc/calc.go"})),
		turn("", edit(t, "calc/calc.go", "return a - b", "return a + b")),
		turn("- Add now adds `calc/calc.go:5`"),
		scripted.Turn{ExpectContains: "have not run the tests",
			ToolCalls: []scripted.ToolCall{call(t, "Bash", map[string]any{"command": "go test ./... -run TestAdd"})}},
		turn("- Add now adds `calc/calc.go:5`; the tests pass"),
	)
	if res.Status != scout.StatusFixed || !res.OK() {
		t.Fatalf("status = %q (%s), want fixed; test output:\n%v", res.Status, res.Reason, res.Fix)
	}
	if res.Outcome.Turns != 5 {
		t.Errorf("Outcome.Turns = %d, want 5", res.Outcome.Turns)
	}
	f := res.Fix
	if !f.TestedAfterEdit || !f.TestPassed || !slices.Equal(f.Changed, []string{"calc/calc.go"}) || f.DiffLines != 2 {
		t.Errorf("Fix = %+v", *f)
	}
	if !strings.Contains(readFile(t, dir, "calc/calc.go"), "return a + b") {
		t.Error("the edit did not land")
	}
}

func TestFixFailingTestsNotFixed(t *testing.T) {
	dir := newTextRepo(t)
	cfg := scout.Config{Prompt: "make check.sh pass", Fix: &scout.FixConfig{Test: "sh check.sh"}}
	res := run(t, dir, cfg,
		turn("", call(t, "Read", map[string]any{"file_path": "calc.txt"})),
		turn("", edit(t, "calc.txt", "status: broken", "status: still broken")),
		turn("", call(t, "Bash", map[string]any{"command": "sh check.sh"})),
		turn("- done, calc.txt is fixed `calc.txt:1`"),
		scripted.Turn{ExpectContains: "last run of `sh check.sh` failed", Text: "- I could not fix it `calc.txt:1`"},
		turn("- reminded twice `calc.txt:1`"),
	)
	if res.Status != scout.StatusNotFixed || res.OK() {
		t.Fatalf("status = %q (%s), want not_fixed", res.Status, res.Reason)
	}
	if res.Outcome.Turns != 5 {
		t.Errorf("Outcome.Turns = %d, want 5 (reminded once)", res.Outcome.Turns)
	}
	f := res.Fix
	if f.TestPassed || f.TestedAfterEdit || !strings.Contains(f.TestOutput, "calc.txt is not fixed") {
		t.Errorf("Fix = %+v", *f)
	}
	if !strings.Contains(res.Reason, "sh check.sh") {
		t.Errorf("Reason = %q, want the test command named", res.Reason)
	}
}

func TestFixNothingChanged(t *testing.T) {
	dir := newTextRepo(t)
	writeFiles(t, dir, map[string]string{"calc.txt": "status: fixed\n"})
	cfg := scout.Config{Prompt: "make check.sh pass", Fix: &scout.FixConfig{Test: "sh check.sh"}}
	res := run(t, dir, cfg,
		turn("", call(t, "Read", map[string]any{"file_path": "calc.txt"})),
		turn("- already fixed `calc.txt:1`"),
	)
	if res.Status != scout.StatusNotFixed || !strings.Contains(res.Reason, "nothing was changed") {
		t.Fatalf("status = %q (%s), want not_fixed, nothing was changed", res.Status, res.Reason)
	}
	if !res.Fix.TestPassed || len(res.Fix.Changed) != 0 {
		t.Errorf("Fix = %+v", *res.Fix)
	}
}

// TestFixChangedIsRelative shows a bug: FixResult.Changed is documented as relative to the
// repository, but editLog records the file_path as the model wrote it, so an absolute
// path (what the Edit tool's schema asks for) is reported as is, and the same file edited
// once by absolute and once by relative path is listed twice.
func TestFixChangedIsRelative(t *testing.T) {
	dir := newTextRepo(t)
	abs := filepath.Join(dir, "calc.txt")
	cfg := scout.Config{Prompt: "make check.sh pass", Fix: &scout.FixConfig{Test: "sh check.sh"}}
	res := run(t, dir, cfg,
		turn("", call(t, "Read", map[string]any{"file_path": abs})),
		turn("", edit(t, abs, "status: broken", "status: fixed"), edit(t, "calc.txt", "end", "END")),
		turn("", call(t, "Bash", map[string]any{"command": "sh check.sh"})),
		turn("- fixed `calc.txt:1`"),
	)
	if res.Status != scout.StatusFixed {
		t.Fatalf("status = %q (%s), want fixed", res.Status, res.Reason)
	}
	if !slices.Equal(res.Fix.Changed, []string{"calc.txt"}) {
		t.Errorf("Changed = %q, want [calc.txt]", res.Fix.Changed)
	}
}

// surveyMode names the tests that run the standard survey (no question).
var surveyMode = map[string]bool{"TestSurveyNeedsItsSections": true}

func TestSurveyNeedsItsSections(t *testing.T) {
	dir := newRepo(t)
	partial := "## Entry points\n- main prints a sum `main.go:9`\n## Core modules\n- `calc/calc.go:4`\n"
	res := run(t, dir, scout.Config{},
		turn("", call(t, "Read", map[string]any{"file_path": "main.go"}), call(t, "Read", map[string]any{"file_path": "calc/calc.go"})),
		turn(partial),
		scripted.Turn{ExpectContains: "The survey lacks these sections: Tests, Risks", Text: partial},
	)
	if res.Status != scout.StatusIncomplete || !slices.Equal(res.MissingSections, []string{"Tests", "Risks"}) || !res.Corrected {
		t.Fatalf("status %q (%s), missing %v, corrected %v", res.Status, res.Reason, res.MissingSections, res.Corrected)
	}

	full := partial + "## How to run the tests\n- `go test ./...` per `calc/calc_test.go:1`\n## Risks\n- no overflow check `calc/calc.go:5`\n"
	res = run(t, dir, scout.Config{},
		turn("", call(t, "Read", map[string]any{"file_path": "main.go"}), call(t, "Read", map[string]any{"file_path": "calc/calc.go"}),
			call(t, "Read", map[string]any{"file_path": "calc/calc_test.go"})),
		turn(full),
	)
	if res.Status != scout.StatusVerified || res.Corrected {
		t.Fatalf("status %q (%s), corrected %v", res.Status, res.Reason, res.Corrected)
	}
	// Verified line citations carry the cited text as their evidence.
	c := res.Conclusions[0].Citations[0]
	if c.Raw != "main.go:9" || c.Excerpt != "func main() {" {
		t.Errorf("first citation = %+v, want main.go:9 with its line as the excerpt", c)
	}
}

// A model citing the absolute paths its tools were given is verified like one citing
// relative paths.
func TestAbsoluteCitationsInsideTheRepositoryVerify(t *testing.T) {
	dir := newRepo(t)
	abs := filepath.Join(dir, "calc", "calc.go")
	res := run(t, dir, scout.Config{},
		turn("", call(t, "Read", map[string]any{"file_path": abs})),
		turn("- Add lives in `"+abs+":4`"),
	)
	if res.Status != scout.StatusVerified || res.Corrected {
		t.Fatalf("status %q (%s), corrected %v", res.Status, res.Reason, res.Corrected)
	}
	if c := res.Conclusions[0].Citations[0]; c.Path != "calc/calc.go" || c.Line != 4 || !c.Verified {
		t.Errorf("citation = %+v", c)
	}
}

// A fix that runs out of turns still reports what its edits left: the test verdict.
func TestFixOutOfTurnsStillReportsTheTests(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"check.sh": "grep -q fixed notes.txt\n", "notes.txt": "broken\n"})
	res := run(t, dir, scout.Config{Prompt: "make check.sh pass", MaxTurns: 2, Fix: &scout.FixConfig{Test: "sh check.sh", Extensions: []string{".txt"}}},
		turn("", call(t, "Read", map[string]any{"file_path": "notes.txt"})),
		turn("", call(t, "Edit", map[string]any{"file_path": "notes.txt", "old_string": "broken", "new_string": "fixed"})),
		turn("never reached"),
	)
	if res.Status != "budget_exhausted" || res.Fix == nil || !res.Fix.TestPassed || res.Fix.Status != scout.StatusFixed {
		t.Fatalf("status %q, fix %+v", res.Status, res.Fix)
	}
}

// A dry run grants no write permission: an edit that passes every other check is refused
// and recorded as a proposal; one that fails another check is refused for that reason.
func TestFixDryRunProposesWithoutWriting(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"check.sh": "grep -q fixed notes.txt\n", "notes.txt": "broken\n", "other.txt": "x\n"})
	res := run(t, dir, scout.Config{Prompt: "make check.sh pass", Fix: &scout.FixConfig{Test: "sh check.sh", Extensions: []string{".txt"}, Allowed: []string{"notes.txt"}, DryRun: true}},
		turn("", call(t, "Read", map[string]any{"file_path": "notes.txt"}), call(t, "Read", map[string]any{"file_path": "other.txt"})),
		turn("",
			call(t, "Edit", map[string]any{"file_path": "notes.txt", "old_string": "broken", "new_string": "fixed"}),
			call(t, "Edit", map[string]any{"file_path": "other.txt", "old_string": "x", "new_string": "y"})),
		scripted.Turn{ExpectContains: "write permission was not granted", Text: "Change `notes.txt:1` from broken to fixed."},
	)
	if res.Status != scout.StatusProposed || !res.OK() || res.Fix == nil || len(res.Fix.Proposed) != 1 || res.Fix.Proposed[0].File != "notes.txt" {
		t.Fatalf("status %q (%s), fix %+v", res.Status, res.Reason, res.Fix)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(data) != "broken\n" {
		t.Errorf("a dry run wrote notes.txt: %q", data)
	}
	if len(res.Outcome.Denials) != 2 || !strings.Contains(res.Outcome.Denials[1].Reason, "not among the files") {
		t.Errorf("denials = %+v", res.Outcome.Denials)
	}
}
