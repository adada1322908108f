package fakeserver

import (
	"io"
	"net/http"
	"strings"
	"sync"
)

// Recorder is an http.RoundTripper that sends nothing: it keeps each request it is given
// and answers 401 with a provider-shaped error, so a test can see where a provider built
// from a plain environment would send its requests (scheme, host, path, headers) without
// any network. A 401 is not retried, so one call makes one request.
type Recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

// RoundTrip implements http.RoundTripper.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	body := `{"type":"error","error":{"type":"authentication_error","message":"recorded, not sent"}}`
	return &http.Response{
		StatusCode: http.StatusUnauthorized,
		Status:     "401 Unauthorized",
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(strings.NewReader(body)),
		Request: req,
	}, nil
}

// RecordDefault puts a Recorder in place of http.DefaultTransport until the test ends,
// so a provider built exactly as a plain environment builds it (no base URL, no client
// of its own) sends to it. Tests using it must not run in parallel.
func RecordDefault(t interface{ Cleanup(func()) }) *Recorder {
	rec := &Recorder{}
	saved := http.DefaultTransport
	http.DefaultTransport = rec
	t.Cleanup(func() { http.DefaultTransport = saved })
	return rec
}

// Requests returns the requests recorded so far.
func (r *Recorder) Requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.reqs...)
}
