//go:build unix

package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// connectRecorder is an HTTPS proxy that records each CONNECT target and refuses it:
// through HTTPS_PROXY it shows where ouro would send a request, with no network at all.
type connectRecorder struct {
	ln      net.Listener
	mu      sync.Mutex
	targets []string
	got     chan struct{} // closed at the first CONNECT
	once    sync.Once
}

func newConnectRecorder(t *testing.T) *connectRecorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &connectRecorder{ln: ln, got: make(chan struct{})}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go r.serve(c)
		}
	}()
	return r
}

func (r *connectRecorder) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	r.mu.Lock()
	r.targets = append(r.targets, req.Method+" "+req.Host)
	r.mu.Unlock()
	r.once.Do(func() { close(r.got) })
	_, _ = c.Write([]byte("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
}

func (r *connectRecorder) Targets() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.targets...)
}

func (r *connectRecorder) URL() string { return "http://" + r.ln.Addr().String() }

// runThroughProxy runs ouro -p with only the key vars set (no base URL, no settings) and
// HTTPS_PROXY at a recorder, and returns what the recorder saw at the first request.
func runThroughProxy(t *testing.T, keyVars []string, args ...string) ([]string, string) {
	t.Helper()
	e := newEnv(t)
	rec := newConnectRecorder(t)
	var vars []string
	for _, kv := range e.vars {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY":
			continue
		}
		vars = append(vars, kv)
	}
	e.vars = append(append(vars, keyVars...), "HTTPS_PROXY="+rec.URL(), "NO_PROXY=")
	c := e.cmd(append([]string{"-p", "hi"}, args...)...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	select {
	case <-rec.got:
		// The first request is all this test needs; the rest would be retries.
		_ = c.Process.Kill()
		<-exited
	case err := <-exited:
		t.Fatalf("ouro ended (%v) without sending a request through HTTPS_PROXY:\n%s", err, out.String())
	case <-time.After(2 * time.Minute):
		_ = c.Process.Kill()
		<-exited
		t.Fatalf("no request reached HTTPS_PROXY in 2 minutes:\n%s", out.String())
	}
	return rec.Targets(), out.String()
}

// Issue 25: with only a key set, as the README's "real use" lines do, the request must
// leave for the provider's real host. Before the fix it never left the machine:
// "requestconfig: base url is not set".
func TestDefaultPathAnthropicGoesToTheRealHost(t *testing.T) {
	targets, out := runThroughProxy(t, []string{"ANTHROPIC_API_KEY=sk-ant-e2e"})
	if len(targets) == 0 || targets[0] != "CONNECT api.anthropic.com:443" {
		t.Fatalf("proxy saw %q, want CONNECT api.anthropic.com:443 first\n%s", targets, out)
	}
	if strings.Contains(out, "base url is not set") {
		t.Errorf("output:\n%s", out)
	}
}

func TestDefaultPathOpenAIGoesToTheRealHost(t *testing.T) {
	targets, out := runThroughProxy(t, []string{"OPENAI_API_KEY=sk-openai-e2e"}, "--model", "openai:gpt-4o")
	if len(targets) == 0 || targets[0] != "CONNECT api.openai.com:443" {
		t.Fatalf("proxy saw %q, want CONNECT api.openai.com:443 first\n%s", targets, out)
	}
}

// Issue 29: a tool call whose arguments are not JSON (a small open model's single quotes,
// JSON followed by text) does not end an openai:NAME run: the model is told what was
// wrong, with the tool's schema, and goes on. Before, the ouro-openai helper of that time
// died: "json: error calling MarshalJSON for type
// json.RawMessage".
func TestBrokenToolArgumentsOnTheOpenAIPath(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Bash", PartialInput: `{'command': 'ls'}`}}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Bash", PartialInput: `{"command": "ls"} and then I will read it`}}},
		scripted.Turn{ExpectContains: "is not valid JSON", Text: "sent it again"},
	)
	out, errOut, code := e.run("", "-p", "list", "--model", "openai:gpt-5", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "sent it again\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	body := string(srv.Requests()[1].Body)
	for _, want := range []string{"is not valid JSON", "invalid character", `\"command\"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the model was not told %q:\n%s", want, body)
		}
	}
}

// Issue 29: a small model on a local server that answers with nothing but the JSON of a
// tool call (Qwen2.5-Coder 0.5B on llama.cpp did, docs/local-model.md) has the call run,
// and one whose arguments are not an object is told so and goes on — the run is never
// "completed" with nothing done.
func TestBareJSONToolCallOnTheOpenAIPath(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "{\n  \"name\": \"Bash\",\n  \"arguments\": {\"command\": \"echo bare-json-ran\"}\n}"},
		scripted.Turn{Text: `{"name": "Bash", "arguments": ["go test ./...", "timeout:120000"]}`},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "test it", "--model", "openai:gpt-5", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if !strings.Contains(string(reqs[1].Body), "bare-json-ran") {
		t.Errorf("the call written as JSON text did not run:\n%s", clipOut(string(reqs[1].Body)))
	}
	// The note is ouro's, kept in the transcript; the model is not shown it as its own
	// words (a small model repeated it as its answer).
	if strings.Contains(string(reqs[2].Body), "ouro read 1 tool call(s) the model wrote as text") {
		t.Errorf("the note was sent back to the model:\n%s", clipOut(string(reqs[2].Body)))
	}
	noted := false
	_ = filepath.WalkDir(e.home, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), "ouro read 1 tool call(s) the model wrote as text") {
				noted = true
			}
		}
		return nil
	})
	if !noted {
		t.Error("the transcript does not say the call was read from text")
	}
}
