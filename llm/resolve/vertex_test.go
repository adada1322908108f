//go:build vertex

package resolve

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// fakeGoogle answers the token exchange of a service account (at the token_uri of the
// test's key file) and records every other request, answering 401: no network at all.
type fakeGoogle struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (f *fakeGoogle) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	resp := &http.Response{Header: http.Header{"Content-Type": {"application/json"}}, Request: r, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	if r.URL.Host == "oauth2.fake.test" {
		resp.StatusCode = 200
		resp.Body = io.NopCloser(strings.NewReader(`{"access_token":"ya29.fake-token","token_type":"Bearer","expires_in":3600}`))
		return resp, nil
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, r)
	f.mu.Unlock()
	resp.StatusCode = 401
	resp.Body = io.NopCloser(strings.NewReader(`{"type":"error","error":{"type":"authentication_error","message":"recorded"}}`))
	return resp, nil
}

// The default path of CLAUDE_CODE_USE_VERTEX: with a (fake) service account and the
// project, the request goes to the region's Vertex host (us-east5 by default) for the
// model's Vertex id, with the service account's token.
func TestVertexDefaultPath(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: must(x509.MarshalPKCS8PrivateKey(key))})
	sa, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "proj-1", "private_key_id": "k1",
		"private_key": string(pemKey), "client_email": "ouro@proj-1.iam.gserviceaccount.com", "client_id": "1",
		"token_uri": "https://oauth2.fake.test/token"})
	path := filepath.Join(t.TempDir(), "sa.json")
	os.WriteFile(path, sa, 0o600)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	fake := &fakeGoogle{}
	saved := http.DefaultTransport
	http.DefaultTransport = fake
	t.Cleanup(func() { http.DefaultTransport = saved })

	env := envOf(map[string]string{"CLAUDE_CODE_USE_VERTEX": "1", "ANTHROPIC_VERTEX_PROJECT_ID": "proj-1", "GOOGLE_APPLICATION_CREDENTIALS": path})
	p, name, err := newProvider("claude-sonnet-4-5", "", env, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = p.Complete(context.Background(), &llm.Request{Model: name, MaxTokens: 10, Messages: []llm.Message{llm.UserText("hi")}}, nil)
	if len(fake.reqs) == 0 {
		t.Fatal("no request")
	}
	r := fake.reqs[0]
	want := "/v1/projects/proj-1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:"
	if r.URL.Host != "us-east5-aiplatform.googleapis.com" || !strings.HasPrefix(r.URL.Path, want) {
		t.Errorf("request to %s, want us-east5-aiplatform.googleapis.com%s…", r.URL, want)
	}
	if r.Header.Get("Authorization") != "Bearer ya29.fake-token" {
		t.Errorf("Authorization %q", r.Header.Get("Authorization"))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
