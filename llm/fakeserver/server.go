// Package fakeserver is an HTTP server that speaks the Anthropic Messages API and the
// OpenAI Chat Completions API (plain JSON and server-sent events), answering from a
// scripted.Script. It exists so the real SDK clients are tested end to end without a
// network or a key, and so users can try hooks and settings against `ouro fake-model`.
//
// Every request takes the next step of the script, whichever protocol it uses. Each
// request is checked like the real API would check it (the conversation's tool_use /
// tool_result pairing included) and recorded for inspection.
package fakeserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// Recorded is one request the server received.
type Recorded struct {
	Protocol string          // "anthropic" or "openai"
	Path     string          // URL path
	Header   http.Header     // request headers
	Body     json.RawMessage // raw request body
	Stream   bool            // whether the client asked for SSE
	// Messages is the conversation decoded into ouro's model (both protocols map onto it).
	Messages []llm.Message
	Step     int // 0-based step of the script that answered, -1 when none was left
}

// Server is the fake model endpoint. It implements http.Handler.
type Server struct {
	script *scripted.Script
	steps  []int

	mu   sync.Mutex
	next int
	log  []Recorded
	// OnRequest, if set, is called after each request is recorded (under no lock).
	OnRequest func(Recorded)
	// window, when set, is the context window the server reports as llama.cpp's does.
	window int
}

// SetContextWindow makes the server report a context window of n tokens as llama.cpp's
// server does: GET /props (default_generation_settings.n_ctx) and GET /v1/models
// (meta.n_ctx, meta.n_ctx_train). Until it is called those paths are not found, as on
// servers that report no window.
func (s *Server) SetContextWindow(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.window = n
}

func (s *Server) contextWindow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.window
}

// serveWindow answers llama.cpp's /props and /v1/models with the window set, and says
// whether it answered.
func (s *Server) serveWindow(w http.ResponseWriter, r *http.Request) bool {
	n := s.contextWindow()
	if n <= 0 || r.Method != http.MethodGet {
		return false
	}
	var body any
	switch r.URL.Path {
	case "/props":
		body = map[string]any{"default_generation_settings": map[string]any{"n_ctx": n}, "total_slots": 1}
	case "/v1/models", "/models":
		body = map[string]any{"object": "list", "data": []any{map[string]any{
			"id": "local-model", "object": "model", "owned_by": "llamacpp",
			"meta": map[string]any{"n_ctx": n, "n_ctx_train": 4 * n}}}}
	default:
		return false
	}
	w.Header().Set("content-type", "application/json")
	json.NewEncoder(w).Encode(body)
	return true
}

// New returns a server playing s.
func New(s *scripted.Script) (*Server, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &Server{script: s, steps: s.Steps()}, nil
}

// Requests returns what the server received so far.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.log...)
}

// Remaining reports how many steps of the script have not been played.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

// ServeHTTP routes by path: /v1/messages to the Anthropic protocol, /v1/chat/completions
// (or /chat/completions) to the OpenAI protocol, and /props and /v1/models to the context
// window when one is set (SetContextWindow).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.serveWindow(w, r) {
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.serveAnthropic(w, r)
	case r.Method == http.MethodPost && (r.URL.Path == "/v1/chat/completions" || r.URL.Path == "/chat/completions"):
		s.serveOpenAI(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/healthz":
		w.Header().Set("content-type", "application/json")
		fmt.Fprintf(w, `{"ok":true,"remaining_steps":%d}`, s.Remaining())
	default:
		http.Error(w, fmt.Sprintf("fakeserver: no route for %s %s (it serves POST /v1/messages and POST /v1/chat/completions)", r.Method, r.URL.Path), http.StatusNotFound)
	}
}

// take records the request and returns the script turn index that answers it, or -1
// when the script is used up.
func (s *Server) take(rec Recorded) (turn int, step int) {
	s.mu.Lock()
	step = -1
	turn = -1
	if s.next < len(s.steps) {
		step = s.next
		turn = s.steps[step]
		s.next++
	}
	rec.Step = step
	s.log = append(s.log, rec)
	cb := s.OnRequest
	s.mu.Unlock()
	if cb != nil {
		cb(rec)
	}
	return turn, step
}
