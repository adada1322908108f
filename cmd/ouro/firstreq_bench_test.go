//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// BenchmarkFirstRequest measures the first model request of a default headless run
// (`ouro -p`, every default tool, no settings) on both wires, as the fake model receives
// it: the whole HTTP body in bytes, and two token estimates, both at four bytes a token:
// body/4 (JSON punctuation and wire framing included), and the fake server's own count
// (scripted.EstimateUsage: system text + tool definitions + messages, the figure the run
// reports as input_tokens). Issue 32 goal 5: at most 4,500 tokens. Each tool's share of
// the body is logged, largest first. Run with
//
//	go test ./cmd/ouro -run '^$' -bench FirstRequest -benchtime 1x -v
func BenchmarkFirstRequest(b *testing.B) {
	for _, wire := range []struct{ name, model string }{{"anthropic", ""}, {"openai", "openai:gpt-5"}} {
		b.Run(wire.name, func(b *testing.B) {
			var body []byte
			var counted float64
			for b.Loop() {
				body, counted = firstRequest(b, wire.model)
			}
			b.ReportMetric(float64(len(body)), "bytes")
			b.ReportMetric(float64(len(body)/4), "body/4-tokens")
			b.ReportMetric(counted, "fake-server-tokens")
			b.Logf("%s wire: first request %d bytes, about %d tokens at body/4, %.0f tokens counted by the fake server (system + tools + messages, /4); budget 4,500",
				wire.name, len(body), len(body)/4, counted)
			logToolShares(b, body)
		})
	}
}

// firstRequest runs `ouro -p` once against the fake model and returns the body of its
// first request and the input tokens the run reported (the fake server's estimate).
func firstRequest(tb testing.TB, model string) ([]byte, float64) {
	tb.Helper()
	// newEnv's clean environment (no keys or settings of the developer's), for a testing.TB.
	home, dir := tb.TempDir(), tb.TempDir()
	var vars []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "ANTHROPIC_") && !strings.HasPrefix(k, "OPENAI_") && !strings.HasPrefix(k, "OURO_") && k != "HOME" {
			vars = append(vars, kv)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	srv, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{{Text: "ok"}}})
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	vars = append(vars, "HOME="+home, "OURO_HOME="+filepath.Join(home, ".ouro"),
		"ANTHROPIC_BASE_URL="+hs.URL, "ANTHROPIC_API_KEY=test-key", "OPENAI_BASE_URL="+hs.URL+"/v1")
	args := []string{"-p", "what is here?", "--output-format", "json"}
	if model != "" {
		args = append(args, "--model", model)
	}
	c := exec.Command(binary, args...)
	c.Dir, c.Env = dir, append(vars, goEnv...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	o, err := c.Output()
	out := string(o)
	if err != nil {
		tb.Fatalf("%v\n%s\n%s", err, out, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		tb.Fatal("the fake model received no request")
	}
	var res struct {
		Usage struct {
			InputTokens float64 `json:"input_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(o, &res); err != nil {
		tb.Fatalf("result %q: %v", out, err)
	}
	return reqs[0].Body, res.Usage.InputTokens
}

// logToolShares logs each tool definition's size in the body (both wires' shapes), and
// the system prompt's.
func logToolShares(tb testing.TB, body []byte) {
	tb.Helper()
	var req struct {
		System   json.RawMessage   `json:"system"`
		Tools    []json.RawMessage `json:"tools"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		tb.Fatalf("body: %v", err)
	}
	type share struct {
		name string
		n    int
	}
	var shares []share
	total := 0
	for _, t := range req.Tools {
		var named struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		_ = json.Unmarshal(t, &named)
		shares = append(shares, share{named.Name + named.Function.Name, len(t)})
		total += len(t)
	}
	sort.Slice(shares, func(i, j int) bool { return shares[i].n > shares[j].n })
	var sb strings.Builder
	for _, s := range shares {
		fmt.Fprintf(&sb, " %s %d;", s.name, s.n)
	}
	sys := len(req.System)
	if sys == 0 && len(req.Messages) > 0 { // OpenAI: the system prompt is the first message
		sys = len(req.Messages[0])
	}
	tb.Logf("%d tools, %d bytes:%s system prompt %d bytes", len(req.Tools), total, sb.String(), sys)
}
