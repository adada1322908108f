package anthropic

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// fastRetry retries quickly so tests never wait on real backoff.
func fastRetry() llm.RetryPolicy {
	return llm.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
}

// newFakeServer starts a fake server playing script and returns it with its URL.
func newFakeServer(t *testing.T, script string) (*fakeserver.Server, string) {
	t.Helper()
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatalf("parse script: %v", err)
	}
	fs, err := fakeserver.New(s)
	if err != nil {
		t.Fatalf("fake server: %v", err)
	}
	ts := httptest.NewServer(fs)
	t.Cleanup(ts.Close)
	return fs, ts.URL
}

// newTestProvider starts a fake server playing script and returns a provider aimed at it.
func newTestProvider(t *testing.T, script string, cfg Config) (*Provider, *fakeserver.Server) {
	t.Helper()
	fs, url := newFakeServer(t, script)
	cfg.BaseURL = url
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-test"
	}
	if cfg.Retry == (llm.RetryPolicy{}) {
		cfg.Retry = fastRetry()
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p, fs
}

// deltaLog collects deltas; the provider may call it from its own goroutine.
type deltaLog struct {
	mu     sync.Mutex
	deltas []llm.Delta
}

func (d *deltaLog) add(x llm.Delta) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.deltas = append(d.deltas, x)
}

func (d *deltaLog) all() []llm.Delta {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]llm.Delta(nil), d.deltas...)
}

// text joins the deltas of one kind.
func (d *deltaLog) text(kind string) string {
	var sb strings.Builder
	for _, x := range d.all() {
		if x.Kind == kind {
			sb.WriteString(x.Text)
		}
	}
	return sb.String()
}

func (d *deltaLog) count(kind string) int {
	n := 0
	for _, x := range d.all() {
		if x.Kind == kind {
			n++
		}
	}
	return n
}

func userReq(model, text string) *llm.Request {
	return &llm.Request{Model: model, Messages: []llm.Message{llm.UserText(text)}, MaxTokens: 1000}
}

func complete(t *testing.T, p *Provider, req *llm.Request, d *deltaLog) (*llm.Response, error) {
	t.Helper()
	var on llm.StreamFunc
	if d != nil {
		on = d.add
	}
	return p.Complete(context.Background(), req, on)
}

// body decodes the raw body of recorded request i.
func body(t *testing.T, fs *fakeserver.Server, i int) map[string]any {
	t.Helper()
	reqs := fs.Requests()
	if i >= len(reqs) {
		t.Fatalf("request %d not received (got %d)", i, len(reqs))
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[i].Body, &m); err != nil {
		t.Fatalf("request %d body: %v", i, err)
	}
	return m
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
