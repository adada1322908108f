//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/openaiproc"
	"github.com/ouroagent/ouro/llm/scripted"
)

// withOpenAIHelper checks that the ouro-openai helper TestMain built is next to the e2e
// binary, where ouro looks for it.
func withOpenAIHelper(t *testing.T) { testProgram(t, openaiproc.HelperName) }

// inittraceLine is one package's line of GODEBUG=inittrace=1:
// "init PACKAGE @0.9 ms, 0.01 ms clock, 4128 bytes, 3 allocs".
var inittraceLine = regexp.MustCompile(`(?m)^init (\S+) @.* (\d+) bytes, \d+ allocs`)

// initBudget bounds what all package initialisation of a headless run allocates: 1.6 MB
// today (goldmark's tables 0.5 MB, go-readability's and x/net/html's 0.4 MB), 1.9 MB with
// the OpenAI SDK. Allocation counts do not depend on the machine's load, so this catches
// a heavy new package (the TUI stack added 0.6 MB) that TestPeakMemory's noisy figure
// might hide.
const initBudget = 2 << 20

// Packages whose initialisation a headless run on Claude must not pay for. Go initialises
// every linked package in every run, so each of these is kept out of ouro and lives in a
// helper program: the OpenAI SDK (ouro-openai; it alone took a 3-turn task from 20.9 to
// 25.4 MB, see llm/openaiproc) and the JavaScript engine (ouro-workflow; see
// workflow/wfproc).
var notInOuro = []string{"github.com/openai/", "github.com/dop251/goja"}

// The guard of TestPeakMemory's figure that does not depend on the machine's load:
// which packages a headless run initialises, as the Go runtime itself reports them.
func TestHeadlessRunInitialisesNoHelperPackages(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "Nothing to do."})
	c := e.cmd("-p", "hello")
	c.Env = append(c.Env, "GODEBUG=inittrace=1")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Nothing to do.") {
		t.Fatalf("the run did not complete:\n%s", out)
	}
	var pkgs []string
	var total int
	type cost struct {
		pkg   string
		bytes int
	}
	var costs []cost
	for _, m := range inittraceLine.FindAllStringSubmatch(string(out), -1) {
		pkgs = append(pkgs, m[1])
		n, _ := strconv.Atoi(m[2])
		total += n
		costs = append(costs, cost{m[1], n})
	}
	// The trace is read right: the Anthropic SDK, which the run uses, is initialised.
	if !containsPrefix(pkgs, "github.com/anthropics/anthropic-sdk-go") {
		t.Fatalf("no init line of the Anthropic SDK among %d lines: GODEBUG=inittrace=1 not honoured or its format changed:\n%s", len(pkgs), out)
	}
	t.Logf("%d packages initialised, allocating %d KB (budget %d KB)", len(pkgs), total>>10, initBudget>>10)
	if total > initBudget {
		sort.Slice(costs, func(i, j int) bool { return costs[i].bytes > costs[j].bytes })
		var top []string
		for _, c := range costs[:min(10, len(costs))] {
			top = append(top, fmt.Sprintf("%s %d KB", c.pkg, c.bytes>>10))
		}
		t.Errorf("package initialisation allocates %d KB, over its %d KB budget; the largest: %s", total>>10, initBudget>>10, strings.Join(top, ", "))
	}
	for _, p := range pkgs {
		for _, bad := range notInOuro {
			if strings.HasPrefix(p, bad) {
				t.Errorf("a headless run initialises %s: it belongs in a helper program, not in ouro (TestPeakMemory)", p)
			}
		}
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// An openai:NAME run streams through the ouro-openai helper: the answer and the tool
// calls arrive, and the helper does not outlive the run.
func TestOpenAIModelRunsInItsHelper(t *testing.T) {
	withOpenAIHelper(t)
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := e.fake(
		scripted.Turn{Text: "Looking.", ToolCalls: []scripted.ToolCall{{Name: "Read", Input: json.RawMessage(`{"file_path":"main.go"}`)}}},
		scripted.Turn{ExpectContains: "func main", Text: "One Go file with an empty main."},
	)
	out, stderr, code := e.run("", "-p", "what is here", "--model", "openai:gpt-5", "--output-format", "stream-json", "--verbose")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var result map[string]any
	for _, l := range parseLines(t, out) {
		if l["type"] == "result" {
			result = l
		}
	}
	if result == nil || result["result"] != "One Go file with an empty main." || result["subtype"] != "success" {
		t.Fatalf("result %v\n%s", result, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Protocol != "openai" {
		t.Fatalf("requests %+v", reqs)
	}
	// No helper is left: each call's process has ended with it.
	if pids, _ := exec.Command("pgrep", "-f", filepath.Join(filepath.Dir(binary), openaiproc.HelperName)).Output(); len(strings.TrimSpace(string(pids))) > 0 {
		t.Errorf("ouro-openai processes outlived the run: %s", pids)
	}
}

// Without the helper, an openai:NAME run stops before it starts and says how to install
// it. A repository's settings cannot name the helper (a program to run with the user's
// key): only ouro's own environment can.
func TestOpenAIModelWithoutItsHelper(t *testing.T) {
	dir := t.TempDir()
	lone := filepath.Join(dir, "ouro") // a copy with no helper beside it
	copyFile(t, binary, lone)
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "should not be reached"})
	evil := filepath.Join(dir, "evil.sh")
	marker := filepath.Join(dir, "ran")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, ".claude", "settings.json"), []byte(`{"env":{"`+openaiproc.BinEnv+`":"`+evil+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := e.cmd("-p", "hi", "--model", "openai:gpt-5")
	c.Path, c.Args[0] = lone, lone
	c.Env = append(c.Env, "PATH="+dir+":/usr/bin:/bin")
	out, err := c.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "go install github.com/ouroagent/ouro/cmd/ouro-openai@latest") {
		t.Fatalf("err %v, output:\n%s", err, out)
	}
	if strings.Contains(string(out), "should not be reached") {
		t.Errorf("the run went on:\n%s", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the program named in the repository's settings was run")
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}

// A transient server failure is retried inside the helper, as in ouro before: the run
// completes, and the retried call is the same conversation.
func TestOpenAIHelperRetriesAServerError(t *testing.T) {
	withOpenAIHelper(t)
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Fault: &scripted.Fault{Status: 500, Message: "upstream hiccup", RetryAfter: 0.05}},
		scripted.Turn{Text: "Fine after all."},
	)
	out, stderr, code := e.run("", "-p", "hello", "--model", "openai:gpt-5")
	if code != 0 || out != "Fine after all.\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].Protocol != "openai" {
		t.Fatalf("requests %+v", reqs)
	}
}

// ouro killed with SIGKILL in the middle of a model call: its helper sees its input end
// and stops too, instead of finishing a call nobody reads.
func TestOpenAIHelperDiesWithOuro(t *testing.T) {
	withOpenAIHelper(t)
	e := newEnv(t)
	got := make(chan struct{}, 1)
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	e.vars = append(e.vars, "OPENAI_BASE_URL="+hang.URL+"/v1", "OPENAI_API_KEY=test-key")
	c := e.cmd("-p", "hello", "--model", "openai:gpt-5")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-time.After(30 * time.Second):
		c.Process.Kill()
		t.Fatal("the model call never reached the server")
	}
	helpers := func() string {
		out, _ := exec.Command("pgrep", "-P", strconv.Itoa(c.Process.Pid), "-f", openaiproc.HelperName).Output()
		return strings.TrimSpace(string(out))
	}
	pid := helpers()
	if pid == "" {
		t.Fatal("no ouro-openai process under ouro during the call")
	}
	c.Process.Kill()
	c.Wait()
	for i := 0; ; i++ {
		if err := exec.Command("kill", "-0", pid).Run(); err != nil {
			break // gone
		}
		if i > 100 {
			exec.Command("kill", "-9", pid).Run()
			t.Fatalf("the helper %s outlived ouro", pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
