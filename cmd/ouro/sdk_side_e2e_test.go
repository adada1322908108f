//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// These tests play the Claude Agent SDK's side of the conversation byte for byte as
// claude-agent-sdk-python 0.2.143 writes it (_internal/query.py, transport/subprocess_cli.py):
// the command line it builds, the initialize request, user messages, and its answers to
// the control requests ouro sends.

// sdkSide is a running ouro driven the way the SDK drives its CLI.
type sdkSide struct {
	t      *testing.T
	c      *exec.Cmd
	in     io.WriteCloser
	stderr *lockedBuf // written by the process while the test reads it
	wmu    sync.Mutex
	seq    int
	// onRequest answers ouro's control requests (can_use_tool, hook_callback,
	// mcp_message): a response object, or errMsg for an error answer; skip leaves it
	// unanswered.
	onRequest func(req map[string]any) (resp any, errMsg string, skip bool)

	mu       sync.Mutex
	lines    []map[string]any // everything else ouro wrote, in order
	requests []map[string]any // ouro's control requests
	answers  map[string]map[string]any
	cond     *sync.Cond
	done     bool
}

// sdkCommand is the command line _build_command makes for default options plus the
// flags the test's options add, ending with --input-format stream-json.
func sdkCommand(extra ...string) []string {
	args := []string{"--output-format", "stream-json", "--verbose", "--system-prompt", ""}
	args = append(args, extra...)
	return append(args, "--input-format", "stream-json")
}

func startSDK(t *testing.T, e *env, onRequest func(map[string]any) (any, string, bool), extra ...string) *sdkSide {
	t.Helper()
	c := e.cmd(sdkCommand(extra...)...)
	c.Env = append(c.Env, "CLAUDE_CODE_ENTRYPOINT=sdk-py", "CLAUDE_AGENT_SDK_VERSION=0.2.143")
	s := &sdkSide{t: t, c: c, stderr: &lockedBuf{}, onRequest: onRequest, answers: map[string]map[string]any{}}
	s.cond = sync.NewCond(&s.mu)
	var err error
	if s.in, err = c.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = s.stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	go s.readLoop(out)
	return s
}

func (s *sdkSide) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	s.writeRaw(string(b) + "\n")
}

func (s *sdkSide) writeRaw(line string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	io.WriteString(s.in, line)
}

func (s *sdkSide) readLoop(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			s.mu.Lock()
			s.lines = append(s.lines, map[string]any{"type": "UNPARSABLE", "text": sc.Text()})
			s.cond.Broadcast()
			s.mu.Unlock()
			continue
		}
		switch m["type"] {
		case "control_response":
			r := m["response"].(map[string]any)
			s.mu.Lock()
			s.answers[r["request_id"].(string)] = r
			s.cond.Broadcast()
			s.mu.Unlock()
		case "control_request":
			s.mu.Lock()
			s.requests = append(s.requests, m)
			s.cond.Broadcast()
			s.mu.Unlock()
			go s.answer(m)
		default:
			s.mu.Lock()
			s.lines = append(s.lines, m)
			s.cond.Broadcast()
			s.mu.Unlock()
		}
	}
	s.mu.Lock()
	s.done = true
	s.cond.Broadcast()
	s.mu.Unlock()
}

// answer replies as Query._handle_control_request does.
func (s *sdkSide) answer(m map[string]any) {
	id := m["request_id"].(string)
	req := m["request"].(map[string]any)
	resp, errMsg, skip := map[string]any(nil), "no handler", false
	if s.onRequest != nil {
		var r any
		r, errMsg, skip = s.onRequest(req)
		if r != nil {
			resp = map[string]any{}
			b, _ := json.Marshal(r)
			json.Unmarshal(b, &resp)
		}
	}
	if skip {
		return
	}
	if errMsg != "" {
		s.write(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "error", "request_id": id, "error": errMsg}})
		return
	}
	s.write(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": resp}})
}

// control sends a control request as _send_control_request does and waits for its answer.
func (s *sdkSide) control(req map[string]any) map[string]any {
	s.t.Helper()
	s.mu.Lock()
	s.seq++
	id := fmt.Sprintf("req_%d_%08x", s.seq, 0xdeadbeef+s.seq)
	s.mu.Unlock()
	s.write(map[string]any{"type": "control_request", "request_id": id, "request": req})
	var got map[string]any
	s.waitFor(func() bool { got = s.answers[id]; return got != nil }, "the answer to "+fmt.Sprint(req["subtype"]))
	return got
}

// initialize sends the SDK's initialize request (hooks nil when none).
func (s *sdkSide) initialize(hooks any, extra ...map[string]any) map[string]any {
	s.t.Helper()
	req := map[string]any{"subtype": "initialize", "hooks": hooks}
	for _, x := range extra {
		for k, v := range x {
			req[k] = v
		}
	}
	r := s.control(req)
	if r["subtype"] != "success" {
		s.t.Fatalf("initialize answered %v\nstderr: %s", r, s.stderr)
	}
	return r
}

// user sends a user message as ClaudeSDKClient.query does.
func (s *sdkSide) user(content string) {
	s.write(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content},
		"parent_tool_use_id": nil, "session_id": "default"})
}

func (s *sdkSide) waitFor(cond func() bool, what string) {
	s.t.Helper()
	deadline := time.AfterFunc(60*time.Second, func() {
		s.mu.Lock()
		s.done = true
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer deadline.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !cond() {
		if s.done {
			s.t.Fatalf("ouro ended (or 60 s passed) before %s\nlines: %v\nstderr: %s", what, s.lines, s.stderr)
		}
		s.cond.Wait()
	}
}

// result waits for the n-th result line (1-based).
func (s *sdkSide) result(n int) map[string]any {
	s.t.Helper()
	var r map[string]any
	s.waitFor(func() bool {
		k := 0
		for _, l := range s.lines {
			if l["type"] == "result" {
				if k++; k == n {
					r = l
					return true
				}
			}
		}
		return false
	}, fmt.Sprintf("result %d", n))
	return r
}

// finish closes standard input (end_input) and returns the exit status.
func (s *sdkSide) finish() int {
	s.t.Helper()
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.c.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			s.t.Fatal(err)
		}
		return 0
	case <-time.After(60 * time.Second):
		s.t.Fatalf("ouro did not exit after its input ended\nstderr: %s", s.stderr)
	}
	return -1
}

func (s *sdkSide) ofType(typ, subtype string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range s.lines {
		if l["type"] == typ && (subtype == "" || l["subtype"] == subtype) {
			out = append(out, l)
		}
	}
	return out
}

func (s *sdkSide) requestsOf(subtype string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, r := range s.requests {
		if r["request"].(map[string]any)["subtype"] == subtype {
			out = append(out, r["request"].(map[string]any))
		}
	}
	return out
}

func sdkToolCall(name string, input any) []scripted.ToolCall {
	b, _ := json.Marshal(input)
	return []scripted.ToolCall{{Name: name, Input: b}}
}
