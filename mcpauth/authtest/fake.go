// Package authtest is an in-process OAuth authorization server and an MCP server it
// protects, for tests: discovery (RFC 9728 and RFC 8414 metadata), dynamic client
// registration, the authorization-code grant with PKCE (S256, checked), refresh tokens,
// and a streamable HTTP MCP endpoint that wants a bearer token. The authorization page
// approves at once, redirecting to the client's redirect URI as a browser would.
package authtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is the fake; URL()+"/mcp" is the MCP endpoint.
type Server struct {
	HS *httptest.Server

	mu        sync.Mutex
	clients   map[string]string // client id → redirect URI
	codes     map[string]grant  // code → what it was issued for
	access    map[string]bool
	refresh   map[string]bool
	n         int
	Log       []string // what happened, in order: register, authorize, token, refresh, mcp
	Expires   int      // expires_in of issued tokens (seconds; default 3600)
	PreID     string   // a pre-registered client id ("" none)
	PreSecret string
}

type grant struct {
	client, challenge, redirect string
}

// New starts the fake.
func New() *Server {
	s := &Server{clients: map[string]string{}, codes: map[string]grant{}, access: map[string]bool{}, refresh: map[string]bool{}, Expires: 3600}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/", s.resourceMeta)
	mux.HandleFunc("/.well-known/oauth-protected-resource", s.resourceMeta)
	mux.HandleFunc("/.well-known/oauth-authorization-server", s.serverMeta)
	mux.HandleFunc("/register", s.register)
	mux.HandleFunc("/authorize", s.authorize)
	mux.HandleFunc("/token", s.token)
	mcpSrv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcpSrv.AddTool(&mcp.Tool{Name: "whoami", Description: "Say which token the call carried.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "token " + r.Extra.Header.Get("X-Token")}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpSrv }, &mcp.StreamableHTTPOptions{Stateless: true})
	mux.Handle("/mcp", s.bearer(h))
	s.HS = httptest.NewServer(mux)
	return s
}

// URL is the server's base URL (issuer and resource server).
func (s *Server) URL() string { return s.HS.URL }

// Close stops the fake.
func (s *Server) Close() { s.HS.Close() }

// Revoke invalidates every token issued so far, refresh tokens included.
func (s *Server) Revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access, s.refresh = map[string]bool{}, map[string]bool{}
}

// Events returns the log so far.
func (s *Server) Events() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.Log...)
}

func (s *Server) log(format string, a ...any) {
	s.Log = append(s.Log, fmt.Sprintf(format, a...))
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) resourceMeta(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, map[string]any{"resource": s.URL() + "/mcp", "authorization_servers": []string{s.URL()},
		"scopes_supported": []string{"mcp"}})
}

func (s *Server) serverMeta(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, map[string]any{"issuer": s.URL(), "authorization_endpoint": s.URL() + "/authorize",
		"token_endpoint": s.URL() + "/token", "registration_endpoint": s.URL() + "/register",
		"response_types_supported": []string{"code"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none", "client_secret_post"},
		"scopes_supported": []string{"mcp", "offline_access"}})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var md struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&md) != nil || len(md.RedirectURIs) != 1 {
		writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	s.mu.Lock()
	s.n++
	id := fmt.Sprintf("client-%d", s.n)
	s.clients[id] = md.RedirectURIs[0]
	s.log("register %s", id)
	s.mu.Unlock()
	writeJSON(w, 201, map[string]any{"client_id": id, "redirect_uris": md.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	redirect, ok := s.clients[q.Get("client_id")]
	if q.Get("client_id") == s.PreID && s.PreID != "" {
		redirect, ok = q.Get("redirect_uri"), true
	}
	switch {
	case !ok:
		http.Error(w, "unknown client", 400)
		return
	case q.Get("redirect_uri") != redirect:
		http.Error(w, "redirect_uri is not the registered one", 400)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE S256 and response_type=code are required", 400)
		return
	case q.Get("resource") != s.URL()+"/mcp":
		http.Error(w, "resource is not this server's", 400)
		return
	}
	code := token("code")
	s.codes[code] = grant{client: q.Get("client_id"), challenge: q.Get("code_challenge"), redirect: redirect}
	s.log("authorize %s", q.Get("client_id"))
	u, _ := url.Parse(redirect)
	v := u.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	u.RawQuery = v.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, 400, map[string]string{"error": "invalid_request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		g, ok := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.PostForm.Get("redirect_uri") != g.redirect {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		if g.client == s.PreID && s.PreID != "" && r.PostForm.Get("client_secret") != s.PreSecret {
			writeJSON(w, 401, map[string]string{"error": "invalid_client"})
			return
		}
		s.log("token %s", g.client)
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		if !s.refresh[rt] {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(s.refresh, rt)
		s.log("refresh")
	default:
		writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	at, rt := token("at"), token("rt")
	s.access[at], s.refresh[rt] = true, true
	writeJSON(w, 200, map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer", "expires_in": s.Expires})
}

// bearer lets through requests with a valid access token (passing it on as X-Token for
// the tool to report); the rest get 401 with the resource metadata's address.
func (s *Server) bearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		valid := ok && s.access[tok]
		s.mu.Unlock()
		if !valid {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.URL()+`/.well-known/oauth-protected-resource/mcp", scope="mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		r.Header.Set("X-Token", tok)
		next.ServeHTTP(w, r)
	})
}

func token(prefix string) string {
	return prefix + "-" + rand.Text()
}
