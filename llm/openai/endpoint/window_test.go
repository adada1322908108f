package endpoint

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// The window is read from llama.cpp's /props first, then from /v1/models; a server that
// reports none, and the OpenAI API itself, give an error that says so.
func TestServerWindow(t *testing.T) {
	srv, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{{Text: "unused"}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	e := Endpoint{BaseURL: hs.URL + "/v1"}
	ctx := context.Background()

	if n, from, err := ServerWindow(ctx, e, "local-model", hs.Client()); err == nil || n != 0 {
		t.Fatalf("a server without /props reported %d from %q", n, from)
	} else if !strings.Contains(err.Error(), "/props: HTTP 404") || !strings.Contains(err.Error(), "/models: HTTP 404") {
		t.Fatalf("the error does not say what was asked: %v", err)
	}

	srv.SetContextWindow(16384)
	for _, base := range []string{hs.URL + "/v1", hs.URL + "/v1/", hs.URL} {
		n, from, err := ServerWindow(ctx, Endpoint{BaseURL: base}, "local-model", hs.Client())
		if err != nil || n != 16384 || from != "the server's /props" {
			t.Errorf("base %s: %d from %q, %v", base, n, from, err)
		}
	}

	if _, _, err := ServerWindow(ctx, Endpoint{Official: true, APIKey: "sk"}, "gpt-5", nil); err == nil {
		t.Error("the OpenAI API was asked for a window")
	}
}

// Without /props, /v1/models answers: the slot's n_ctx before the training window, vLLM's
// max_model_len, and only for the model asked about when the server lists several.
func TestServerWindowFromModels(t *testing.T) {
	var answer atomic.Value // the handler reads what the loop below sets
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer k" {
			t.Errorf("the key was not sent: %q", r.Header.Get("Authorization"))
		}
		w.Write([]byte(answer.Load().(string)))
	}))
	defer hs.Close()
	e := Endpoint{BaseURL: hs.URL + "/v1", APIKey: "k"}
	for _, c := range []struct {
		answer, model string
		want          int
		from          string
	}{
		{`{"data":[{"id":"m","meta":{"n_ctx":8192,"n_ctx_train":32768}}]}`, "m", 8192, "meta.n_ctx"},
		{`{"data":[{"id":"m","meta":{"n_ctx_train":32768}}]}`, "other-name", 32768, "meta.n_ctx_train"},
		{`{"data":[{"id":"a","max_model_len":4096},{"id":"b","max_model_len":65536}]}`, "b", 65536, "max_model_len"},
		{`{"data":[{"id":"a","max_model_len":4096},{"id":"b","max_model_len":65536}]}`, "c", 0, ""},
		{`{"data":[{"id":"m"}]}`, "m", 0, ""},
		{`not json`, "m", 0, ""},
	} {
		answer.Store(c.answer)
		n, from, err := ServerWindow(context.Background(), e, c.model, hs.Client())
		if n != c.want || !strings.Contains(from, c.from) || (c.want == 0) != (err != nil) {
			t.Errorf("%s for %q: %d from %q, %v", c.answer, c.model, n, from, err)
		}
	}
}
