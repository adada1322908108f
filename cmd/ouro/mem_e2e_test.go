//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// inittraceLine is one package's line of GODEBUG=inittrace=1:
// "init PACKAGE @0.9 ms, 0.01 ms clock, 4128 bytes, 3 allocs".
var inittraceLine = regexp.MustCompile(`(?m)^init (\S+) @.* (\d+) bytes, \d+ allocs`)

// initBudget bounds what all package initialisation of a headless run allocates:
// 2.4 MB today (2,441 KB), with the OpenAI SDK and the JavaScript engine linked (ouro is
// one binary; 1.6 MB without them). Allocation counts do not depend on the
// machine's load, so this catches a heavy new package (the TUI stack added 0.6 MB) that
// TestPeakMemory's noisy figure might hide. Amazon Bedrock (issue 30 item 11: the
// Anthropic SDK's bedrock package, which links the AWS SDK's config, sts, sso and imds)
// added 325 KB in 26 packages: 2.5 -> 2.8 MB.
const initBudget = 23 << 17 // 2.875 MB

// The guard of TestPeakMemory's figure that does not depend on the machine's load: what
// a headless run's package initialisation allocates, as the Go runtime itself reports it.
func TestHeadlessRunInitBudget(t *testing.T) {
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
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// An openai:NAME run is served by ouro itself: a copy of the binary alone in a folder,
// with nothing of ouro's on PATH, streams the answer and the tool calls.
func TestOpenAIModelRunsInProcess(t *testing.T) {
	dir := t.TempDir()
	lone := filepath.Join(dir, "ouro") // one install: no other program beside it
	copyFile(t, binary, lone)
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := e.fake(
		scripted.Turn{Text: "Looking.", ToolCalls: []scripted.ToolCall{{Name: "Read", Input: json.RawMessage(`{"file_path":"main.go"}`)}}},
		scripted.Turn{ExpectContains: "func main", Text: "One Go file with an empty main."},
	)
	c := e.cmd("-p", "what is here", "--model", "openai:gpt-5", "--output-format", "stream-json", "--verbose")
	c.Path, c.Args[0] = lone, lone
	c.Env = append(c.Env, "PATH=/usr/bin:/bin")
	var stderr strings.Builder
	c.Stderr = &stderr
	raw, err := c.Output()
	out := string(raw)
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr.String())
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

// A transient server failure is retried under the provider's policy: the run completes,
// and the retried call is the same conversation.
func TestOpenAIModelRetriesAServerError(t *testing.T) {
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
