//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// A local OpenAI-compatible server's context window is read from the server (llama.cpp's
// /props), not taken as 128k: with the fake server reporting 20000 tokens, the same
// session as TestCompactionThroughBinary is compacted as it goes without --context-window.
// A window given with --context-window wins over the server's: with 200000 tokens no
// summary is asked for.
func TestServerContextWindowThroughBinary(t *testing.T) {
	seq := func(i int) scripted.Turn {
		return scripted.Turn{Text: fmt.Sprintf("step %d", i), ToolCalls: bash(fmt.Sprintf("seq 1 %d", 3000+i))}
	}
	summary := scripted.Turn{ExpectContains: "Here is the session so far", Text: "Summary: the user asked to count; seq ran several times."}
	// Every tool, as when these steps were counted out: the short list a small window gets
	// otherwise (TestSmallServerWindowOffersTheShortToolList) leaves room for a step more.
	args := []string{"-p", "count", "--model", "openai:local-model", "--allowedTools", "Bash(seq *)", "--output-format", "json", "--tools", "default"}

	t.Run("from the server", func(t *testing.T) {
		e := newEnv(t)
		srv := e.fake(seq(1), seq(2), seq(3), summary, seq(4), seq(5), summary, scripted.Turn{Text: "done"})
		srv.SetContextWindow(20000)
		out, stderr, code := e.run("", args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		if !strings.Contains(stderr, "its context window is 20000 tokens (read from the server's /props") {
			t.Errorf("the window read is not said:\n%s", stderr)
		}
		reqs := srv.Requests()
		if len(reqs) != 8 || srv.Remaining() != 0 {
			t.Fatalf("%d requests, %d steps left: compaction did not follow the server's window\n%s", len(reqs), srv.Remaining(), stderr)
		}
		if sum := reqs[3].Messages[0].Text(); !strings.Contains(sum, "seq 1 3001") {
			t.Fatalf("the fourth request is no summary request:\n%.300s", sum)
		}
	})

	t.Run("the flag wins", func(t *testing.T) {
		e := newEnv(t)
		srv := e.fake(seq(1), seq(2), seq(3), seq(4), seq(5), scripted.Turn{Text: "done"})
		srv.SetContextWindow(20000)
		out, stderr, code := e.run("", append(args, "--context-window", "200000")...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		if !strings.Contains(stderr, "200000 tokens (--context-window)") {
			t.Errorf("the flag's window is not said:\n%s", stderr)
		}
		if len(srv.Requests()) != 6 || srv.Remaining() != 0 {
			t.Fatalf("%d requests, %d steps left", len(srv.Requests()), srv.Remaining())
		}
	})

	t.Run("a server that reports none", func(t *testing.T) {
		e := newEnv(t)
		srv := e.fake(scripted.Turn{Text: "done"})
		out, stderr, code := e.run("", args...)
		if code != 0 || len(srv.Requests()) != 1 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		if !strings.Contains(stderr, "taken as 128k tokens") || !strings.Contains(stderr, "/props: HTTP 404") {
			t.Errorf("the fallback and why are not said:\n%s", stderr)
		}
	})
}

// A local server's small window (16k, read from /props) gets the short tool list, and
// the user is told why and how to have every tool; --tools default has every tool.
func TestSmallServerWindowOffersTheShortToolList(t *testing.T) {
	args := []string{"-p", "hi", "--model", "openai:local-model", "--output-format", "json"}
	offered := func(extra ...string) ([]string, string) {
		e := newEnv(t)
		srv := e.fake(scripted.Turn{Text: "done"})
		srv.SetContextWindow(16384)
		out, stderr, code := e.run("", append(args, extra...)...)
		if code != 0 || len(srv.Requests()) != 1 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		var body struct {
			Tools []struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range body.Tools {
			names = append(names, tl.Function.Name)
		}
		return names, stderr
	}
	names, stderr := offered()
	if strings.Join(names, ",") != "Read,Edit,Write,Bash,Glob,Grep" && strings.Join(names, ",") != "Bash,Glob,Grep,Read,Edit,Write" {
		t.Errorf("a 16k server was offered %v", names)
	}
	if !strings.Contains(stderr, "context window of 16384 tokens: it is offered only Read, Edit, Write, Bash, Glob, Grep") {
		t.Errorf("the short list is not explained:\n%s", stderr)
	}
	if all, stderr := offered("--tools", "default"); len(all) <= 6 || strings.Contains(stderr, "offered only") {
		t.Errorf("--tools default on a 16k server: offered %v\n%s", all, stderr)
	}
}
