//go:build unix

package openaiproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/openai/endpoint"
)

// The test binary is its own helper: with helperEnv set it serves one call with
// fakeProvider, whose behaviour the request's model names.
const helperEnv = "OPENAIPROC_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		err := Serve(os.Stdin, os.Stdout, func(e endpoint.Endpoint) (llm.Provider, error) {
			if e.APIKey == "bad" {
				return nil, errors.New("openai: base URL is wrong")
			}
			return fakeProvider{end: e}, nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type fakeProvider struct{ end endpoint.Endpoint }

func (fakeProvider) Name() string { return "fake" }

func (f fakeProvider) Complete(ctx context.Context, req *llm.Request, onDelta llm.StreamFunc) (*llm.Response, error) {
	switch req.Model {
	case "echo": // the request and endpoint as the helper got them, streamed in two pieces
		b, _ := json.Marshal(struct {
			E endpoint.Endpoint
			R *llm.Request
		}{f.end, req})
		onDelta(llm.Delta{Kind: "thinking", Text: "hm"})
		onDelta(llm.Delta{Kind: "text", Text: string(b[:10])})
		onDelta(llm.Delta{Kind: "text", Text: string(b[10:])})
		return &llm.Response{ID: "r1", Model: "echo-1", Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock(string(b))}},
			StopReason: llm.StopEndTurn, Usage: llm.Usage{InputTokens: 7, OutputTokens: 3}, Duration: time.Second}, nil
	case "overloaded":
		onDelta(llm.Delta{Kind: "waiting", Text: "overloaded; waiting"})
		return nil, &llm.Error{Kind: llm.ErrKindOverloaded, Status: 529, Message: "busy", Attempts: 3, Err: errors.New("sdk")}
	case "too-long":
		return nil, &llm.Error{Kind: llm.ErrKindPromptTooLong, Status: 400, Message: "maximum context length"}
	case "plain":
		return nil, errors.New("openai: something plain")
	case "hang": // writes its pid, then waits to be stopped; on a cancel, says so in a file
		_ = os.WriteFile(req.System, []byte(strconv.Itoa(os.Getpid())), 0o644)
		<-ctx.Done()
		_ = os.WriteFile(req.System+".cancelled", nil, 0o644)
		return nil, ctx.Err()
	case "crash":
		fmt.Fprintln(os.Stderr, "panic: boom in the helper")
		os.Exit(3)
	case "garbage":
		fmt.Println("this is not JSON")
		return nil, nil
	case "garbage-stuck": // breaks the protocol, then ignores everything
		fmt.Println("this is not JSON")
		time.Sleep(time.Hour)
	}
	return nil, fmt.Errorf("unknown fake model %q", req.Model)
}

func helper(t *testing.T) string {
	t.Helper()
	t.Setenv(helperEnv, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestCompleteStreamsDeltasAndReturnsTheAnswer(t *testing.T) {
	e := endpoint.Endpoint{APIKey: "sk-test", BaseURL: "http://127.0.0.1:9/v1"}
	p := New(helper(t), e)
	if p.Name() != "openai" {
		t.Errorf("name %q", p.Name())
	}
	req := &llm.Request{Model: "echo", System: "sys", MaxTokens: 99, Effort: "high",
		Messages: []llm.Message{llm.UserText("hi ☃"), {Role: llm.RoleAssistant, Content: []llm.Block{
			llm.ToolUseBlock("t1", "Read", json.RawMessage(`{"file_path":"a.go"}`))}},
			{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock("t1", "package a", true),
				{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}}}}},
		Tools: []llm.ToolSpec{{Name: "Read", Description: "reads", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	var deltas []llm.Delta
	resp, err := p.Complete(context.Background(), req, func(d llm.Delta) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		E endpoint.Endpoint
		R *llm.Request
	}
	if err := json.Unmarshal([]byte(resp.Message.Text()), &got); err != nil {
		t.Fatal(err)
	}
	if got.E != e || !reflect.DeepEqual(got.R, req) {
		t.Errorf("the helper got\n%+v\n%+v\nwant\n%+v\n%+v", got.E, got.R, e, req)
	}
	if len(deltas) != 3 || deltas[0].Kind != "thinking" || deltas[1].Text+deltas[2].Text != resp.Message.Text() {
		t.Errorf("deltas %+v", deltas)
	}
	if resp.ID != "r1" || resp.Model != "echo-1" || resp.StopReason != llm.StopEndTurn || resp.Usage.InputTokens != 7 || resp.Duration != time.Second {
		t.Errorf("response %+v", resp)
	}
}

// The agent decides on error kinds (retry, compact): they cross the process intact.
func TestErrorsKeepTheirKind(t *testing.T) {
	p := New(helper(t), endpoint.Endpoint{APIKey: "k"})
	var deltas []llm.Delta
	_, err := p.Complete(context.Background(), &llm.Request{Model: "overloaded"}, func(d llm.Delta) { deltas = append(deltas, d) })
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrKindOverloaded || le.Status != 529 || le.Attempts != 3 || le.Message != "busy" || !le.Retryable() {
		t.Errorf("overloaded: %#v", err)
	}
	if len(deltas) != 1 || deltas[0].Kind != "waiting" {
		t.Errorf("deltas before the error: %+v", deltas)
	}
	if _, err := p.Complete(context.Background(), &llm.Request{Model: "too-long"}, nil); !llm.IsKind(err, llm.ErrKindPromptTooLong) {
		t.Errorf("too long: %v", err)
	}
	_, err = p.Complete(context.Background(), &llm.Request{Model: "plain"}, nil)
	if err == nil || errors.As(err, &le) || err.Error() != "openai: something plain" {
		t.Errorf("plain: %#v", err)
	}
	bad := New(helper(t), endpoint.Endpoint{APIKey: "bad"})
	if _, err := bad.Complete(context.Background(), &llm.Request{Model: "echo"}, nil); err == nil || err.Error() != "openai: base URL is wrong" {
		t.Errorf("provider refused: %v", err)
	}
}

// Cancelling a call stops its helper at once; the caller gets the context's error.
func TestCancelStopsTheHelper(t *testing.T) {
	p := New(helper(t), endpoint.Endpoint{APIKey: "k"})
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
				pid, _ := strconv.Atoi(string(b))
				pgid, _ := syscall.Getpgid(pid)
				if pgid != pid {
					t.Errorf("the helper %d is in process group %d, not one of its own: a Ctrl-C at the terminal would reach it", pid, pgid)
				}
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := p.Complete(ctx, &llm.Request{Model: "hang", System: pidFile}, nil)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v", err)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(string(b))
	if pid == 0 {
		t.Fatal("no pid")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the helper %d outlived its call: %v", pid, err)
	}
}

// When ouro dies (kill -9), the helper's input ends: it cancels its call and exits
// instead of finishing a model call nobody reads.
func TestHelperStopsWhenOuroIsGone(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	cmd := exec.Command(helper(t))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(call{Request: &llm.Request{Model: "hang", System: pidFile}})
	in.Write(append(line, '\n'))
	for i := 0; ; i++ {
		if _, err := os.Stat(pidFile); err == nil {
			break
		}
		if i > 500 {
			t.Fatal("the helper never started the call")
		}
		time.Sleep(10 * time.Millisecond)
	}
	in.Close() // what ouro's death does to the pipe
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the helper kept running after its input ended")
	}
	if _, err := os.Stat(pidFile + ".cancelled"); err != nil {
		t.Errorf("the call was not cancelled: %v", err)
	}
}

func TestBrokenHelpersGiveClearErrors(t *testing.T) {
	p := New(helper(t), endpoint.Endpoint{APIKey: "k"})
	_, err := p.Complete(context.Background(), &llm.Request{Model: "crash"}, nil)
	if err == nil || !strings.Contains(err.Error(), "ended without an answer") || !strings.Contains(err.Error(), "boom in the helper") {
		t.Errorf("crash: %v", err)
	}
	_, err = p.Complete(context.Background(), &llm.Request{Model: "garbage"}, nil)
	if err == nil || !strings.Contains(err.Error(), "other than its protocol") {
		t.Errorf("garbage: %v", err)
	}
	// A helper that breaks the protocol and then hangs is stopped after a grace period.
	defer func(g time.Duration) { exitGrace = g }(exitGrace)
	exitGrace = 100 * time.Millisecond
	start := time.Now()
	_, err = p.Complete(context.Background(), &llm.Request{Model: "garbage-stuck"}, nil)
	if err == nil || !strings.Contains(err.Error(), "other than its protocol") || time.Since(start) > 5*time.Second {
		t.Errorf("garbage, then stuck: %v after %s", err, time.Since(start))
	}
	missing := New(filepath.Join(t.TempDir(), "ouro-openai"), endpoint.Endpoint{APIKey: "k"})
	if _, err := missing.Complete(context.Background(), &llm.Request{Model: "echo"}, nil); err == nil || !strings.Contains(err.Error(), "did not start") {
		t.Errorf("missing: %v", err)
	}
	// Run by hand, the helper says what it is.
	cmd := exec.Command(helper(t))
	cmd.Stdin = strings.NewReader("hello\n")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not for running by hand") {
		t.Errorf("by hand: %v %s", err, out)
	}
}

func TestLocate(t *testing.T) {
	t.Setenv(BinEnv, "")
	t.Setenv("PATH", t.TempDir())
	if _, err := Locate(); err == nil || !strings.Contains(err.Error(), "go install github.com/ouroagent/ouro/cmd/ouro-openai@latest") {
		t.Errorf("none: %v", err)
	}
	dir := t.TempDir()
	onPath := filepath.Join(dir, HelperName)
	os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", dir)
	if p, err := Locate(); err != nil || p != onPath {
		t.Errorf("on PATH: %q %v", p, err)
	}
	t.Setenv(BinEnv, "/opt/x/ouro-openai")
	if p, err := Locate(); err != nil || p != "/opt/x/ouro-openai" {
		t.Errorf("%s: %q %v", BinEnv, p, err)
	}
}
