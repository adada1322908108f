package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// keyQueue hands out key-1, key-2, ... : a new one on each Refresh of the current key.
type keyQueue struct {
	mu        sync.Mutex
	n         int
	refreshes int
	fail      error
}

func (q *keyQueue) Key(context.Context) (string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == 0 {
		q.n = 1
	}
	return fmt.Sprintf("key-%d", q.n), nil
}

func (q *keyQueue) Refresh(_ context.Context, refused string) (string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.refreshes++
	if q.fail != nil {
		return "", q.fail
	}
	if refused == fmt.Sprintf("key-%d", q.n) {
		q.n++
	}
	return fmt.Sprintf("key-%d", q.n), nil
}

func keyProvider(t *testing.T, script string, keys KeySource) (*Provider, *fakeserver.Server) {
	t.Helper()
	fs, url := newFakeServer(t, script)
	p, err := New(Config{BaseURL: url, Keys: keys, Retry: fastRetry()})
	if err != nil {
		t.Fatal(err)
	}
	return p, fs
}

// A helper's key goes out as both X-Api-Key and Authorization: Bearer, as Claude Code
// sends it; a 401 gets one new key and the request is sent again at once.
func TestKeySourceHeadersAndRefreshOn401(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "")
	q := &keyQueue{}
	p, fs := keyProvider(t, `{"turns": [{"fault": {"status": 401, "message": "invalid x-api-key"}}, {"text": "hello"}]}`, q)
	resp, err := complete(t, p, userReq("claude-sonnet-4-5", "hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "hello" {
		t.Fatalf("answer %q", resp.Message.Text())
	}
	reqs := fs.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, want := range []string{"key-1", "key-2"} {
		h := reqs[i].Header
		if h.Get("X-Api-Key") != want || h.Get("Authorization") != "Bearer "+want {
			t.Errorf("request %d: X-Api-Key %q, Authorization %q; want %s both ways", i, h.Get("X-Api-Key"), h.Get("Authorization"), want)
		}
	}
	if q.refreshes != 1 {
		t.Errorf("%d refreshes, want 1", q.refreshes)
	}
}

// A second 401 is the answer: the key was refreshed once and refused again.
func TestKeySourceRefreshesOnlyOnce(t *testing.T) {
	q := &keyQueue{}
	p, fs := keyProvider(t, `{"turns": [{"fault": {"status": 401}}, {"fault": {"status": 401}}, {"text": "never"}]}`, q)
	_, err := complete(t, p, userReq("claude-sonnet-4-5", "hi"), nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ErrKindAuth {
		t.Fatalf("err %v, want an authentication error", err)
	}
	if n := len(fs.Requests()); n != 2 || q.refreshes != 1 {
		t.Errorf("%d requests and %d refreshes, want 2 and 1", n, q.refreshes)
	}
}

// Other retries (an overload) keep the key: only a 401 asks for a new one.
func TestKeySourceKeptAcrossOtherRetries(t *testing.T) {
	q := &keyQueue{}
	p, fs := keyProvider(t, `{"turns": [{"fault": {"status": 529}}, {"text": "ok"}]}`, q)
	if _, err := complete(t, p, userReq("claude-sonnet-4-5", "hi"), nil); err != nil {
		t.Fatal(err)
	}
	for i, r := range fs.Requests() {
		if r.Header.Get("X-Api-Key") != "key-1" {
			t.Errorf("request %d sent %q", i, r.Header.Get("X-Api-Key"))
		}
	}
	if q.refreshes != 0 {
		t.Errorf("%d refreshes after a 529", q.refreshes)
	}
}

// A helper that fails on refresh ends the request with its error, an authentication one.
func TestKeySourceFailure(t *testing.T) {
	q := &keyQueue{fail: errors.New(`apiKeyHelper "vault-key" (/home/u/.claude/settings.json) exited with status 2: vault sealed`)}
	p, _ := keyProvider(t, `{"turns": [{"fault": {"status": 401}}, {"text": "never"}]}`, q)
	_, err := complete(t, p, userReq("claude-sonnet-4-5", "hi"), nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ErrKindAuth || !strings.Contains(err.Error(), "vault sealed") {
		t.Fatalf("err %v", err)
	}
}

// A key variable comes before the helper, as in Claude Code: the helper is not asked.
func TestKeyVariableBeatsKeySource(t *testing.T) {
	q := &keyQueue{}
	srv, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{{Text: "ok"}}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	p, err := New(Config{BaseURL: ts.URL, APIKey: "sk-env", Keys: q, Retry: fastRetry()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := complete(t, p, userReq("claude-sonnet-4-5", "hi"), nil); err != nil {
		t.Fatal(err)
	}
	if h := srv.Requests()[0].Header; h.Get("X-Api-Key") != "sk-env" || h.Get("Authorization") != "" || q.n != 0 {
		t.Errorf("X-Api-Key %q, Authorization %q, helper asked %d", h.Get("X-Api-Key"), h.Get("Authorization"), q.n)
	}
}
