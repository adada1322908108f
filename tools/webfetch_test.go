package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

func webFetchCall(t testing.TB, rawURL, prompt string) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(map[string]string{"url": rawURL, "prompt": prompt})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// A page Readability recognises as an article: one long paragraph, with navigation and
// a footer around it that should not reach the model.
const webArticleHTML = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Using Widgets</title>
<style>body { color: red }</style><script>var tracking = "SCRIPT-TEXT";</script></head>
<body>
<nav class="sidebar"><ul><li><a href="/a">Sidebar one</a></li><li><a href="/b">Sidebar two</a></li></ul></nav>
<article>
<h1>Using Widgets</h1>
<p>Widgets are small composable pieces that let you build an interface out of parts you already understand. ` +
	`This guide walks through installing the widget library, wiring the first widget into a page, and the handful ` +
	`of rules that keep widgets fast: keep state local, pass data down, and send events up. Every example below ` +
	`runs as it is, and each section builds on the one before it, so reading in order is the quickest way through. ` +
	`When something does not behave as described, <a href="/docs/troubleshooting">the troubleshooting page</a> lists ` +
	`the usual causes and how to tell them apart.</p>
<h2>Installing</h2>
<p>Install the library with the package manager of your choice, then import it where you need it. The library ` +
	`has no dependencies of its own, so it adds little to the size of a build, and it works the same in every ` +
	`supported runtime, which the compatibility table in the reference lists in full for each release.</p>
<pre><code>widget := NewWidget("hello")
widget.Render(os.Stdout)</code></pre>
<p>Call <code>Render</code> once per frame.</p>
</article>
<footer class="footer">Copyright FOOTER-TEXT</footer>
</body></html>`

// A short page that is not an article: it is converted whole.
const webSimpleHTML = `<html><head><title>Tiny page</title></head><body>
<h1>Tiny page</h1>
<h2>Links</h2>
<p>See <a href="/docs/intro">the intro</a> and use <code>go test</code>.</p>
<pre><code class="language-sh">go vet ./...
</code></pre>
<script>document.write("SCRIPT-TEXT")</script>
</body></html>`

// webFetchServer serves every kind of answer the tests need on a loopback address.
func webFetchServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(ctype, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			io.WriteString(w, body)
		}
	}
	mux.HandleFunc("/article", page("text/html; charset=utf-8", webArticleHTML))
	mux.HandleFunc("/simple", page("text/html", webSimpleHTML))
	mux.HandleFunc("/text", page("text/plain; charset=utf-8", "line one\nline two\n"))
	mux.HandleFunc("/latin1", page("text/plain; charset=iso-8859-1", "caf\xe9 cr\xe8me"))
	mux.HandleFunc("/json", page("application/json", `{"name":"ouro","tags":["agent","go"]}`))
	mux.HandleFunc("/problem", page("application/problem+json", `{"title":"bad"}`))
	mux.HandleFunc("/png", page("image/png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	mux.HandleFunc("/pdf", page("application/pdf", "%PDF-1.7\n"))
	mux.HandleFunc("/fake-text", page("text/plain", "ELF\x00\x01\x02 not text"))
	mux.HandleFunc("/untyped-png", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // stop net/http from sniffing and setting one
		io.WriteString(w, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	})
	mux.HandleFunc("/untyped-text", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		io.WriteString(w, "just words")
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", "3000")
		io.WriteString(w, strings.Repeat("0123456789", 300))
	})
	mux.HandleFunc("/long", page("text/plain", strings.Repeat("é", 250)))
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/middle", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/middle", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/text", http.StatusFound)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://other.example/landing?x=1", http.StatusFound)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://files.example/x", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<html><head><title>404</title><style>h1{}</style></head><body><h1>Nothing   here</h1>\n<p>Try the index.</p></body></html>")
	})
	mux.HandleFunc("/boom", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "database exploded: "+strings.Repeat("x", 1000))
	})
	mux.HandleFunc("/ua", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "agent="+r.Header.Get("User-Agent"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestWebFetchSpec(t *testing.T) {
	w := NewWebFetch(WebFetchConfig{})
	spec := w.Spec()
	if spec.Name != "WebFetch" || !w.ReadOnly() {
		t.Fatalf("name %q, read-only %v; want WebFetch, true", spec.Name, w.ReadOnly())
	}
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(spec.InputSchema, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	if strings.Join(schema.Required, ",") != "url,prompt" || len(schema.Properties) != 2 {
		t.Errorf("schema does not match Claude Code's: %s", spec.InputSchema)
	}
	if !strings.Contains(spec.Description, "100,000 characters") || !strings.Contains(spec.Description, "5,242,880 bytes") {
		t.Errorf("description does not state the default limits:\n%s", spec.Description)
	}
}

func TestWebFetchPages(t *testing.T) {
	srv := webFetchServer(t)
	base := srv.URL
	cases := []struct {
		name    string
		path    string
		cfg     WebFetchConfig
		final   string // path of the URL in the header; "" means path
		want    []string
		notWant []string
	}{
		{
			name: "article html to markdown, main content",
			path: "/article",
			want: []string{
				"| Status: 200 OK | Content-Type: text/html; charset=utf-8 | Size: ",
				"(main content only)",
				"# Using Widgets\n",
				"## Installing",
				"[the troubleshooting page](" + base + "/docs/troubleshooting)",
				"```\nwidget := NewWidget(\"hello\")\nwidget.Render(os.Stdout)\n```",
				"`Render`",
			},
			notWant: []string{"## Using Widgets", "Sidebar one", "FOOTER-TEXT", "SCRIPT-TEXT", "color: red", "<p>", "<a "},
		},
		{
			name: "simple html converted whole",
			path: "/simple",
			want: []string{
				"| Content-Type: text/html | ",
				"(whole page)",
				"# Tiny page\n\n## Links",
				"[the intro](" + base + "/docs/intro)",
				"`go test`",
				"```sh\ngo vet ./...\n```",
			},
			notWant: []string{"SCRIPT-TEXT", "# Tiny page\n\n# Tiny page", "<h1>"},
		},
		{
			name: "plain text as it is",
			path: "/text",
			want: []string{"| Content-Type: text/plain; charset=utf-8 | Size: 18 bytes\n", "\n\nline one\nline two\n"},
		},
		{
			name: "declared charset decoded",
			path: "/latin1",
			want: []string{"café crème"},
		},
		{
			name: "json as it is",
			path: "/json",
			want: []string{"| Content-Type: application/json | ", `{"name":"ouro","tags":["agent","go"]}`},
		},
		{
			name: "json variant as text",
			path: "/problem",
			want: []string{`{"title":"bad"}`},
		},
		{
			name: "untyped text is sniffed",
			path: "/untyped-text",
			want: []string{"Content-Type: text/plain; charset=utf-8", "just words"},
		},
		{
			name:  "same-host redirects followed",
			path:  "/old",
			final: "/text",
			want:  []string{"line one\nline two"},
		},
		{
			name: "download capped",
			path: "/big",
			cfg:  WebFetchConfig{MaxBytes: 1000},
			want: []string{
				"Size: 1,000 bytes (download stopped at the 1,000-byte limit; the page is longer: 3,000 bytes)",
				"\n\n" + strings.Repeat("0123456789", 100) + "\n\n[... download truncated at 1,000 bytes",
			},
			notWant: []string{strings.Repeat("0123456789", 101)},
		},
		{
			name: "result capped in characters",
			path: "/long",
			cfg:  WebFetchConfig{MaxChars: 100},
			want: []string{
				"| showing the first 100 of 250 characters\n",
				"\n\n" + strings.Repeat("é", 100) + "\n\n[... content truncated: only the first 100 of 250 characters are shown.",
			},
			notWant: []string{strings.Repeat("é", 101)},
		},
		{
			name: "user agent sent",
			path: "/ua",
			cfg:  WebFetchConfig{UserAgent: "ouro-test/9"},
			want: []string{"agent=ouro-test/9"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const prompt = "What does this page say?"
			res, err := NewWebFetch(tc.cfg).Run(context.Background(), tool.ExecInput(webFetchCall(t, base+tc.path, prompt)))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			out := res.Text()
			if res.IsError {
				t.Fatalf("is_error result: %s", out)
			}
			final := tc.final
			if final == "" {
				final = tc.path
			}
			lines := strings.SplitN(out, "\n", 3)
			if len(lines) < 3 || !strings.HasPrefix(lines[0], "URL: "+base+final+" | Status: 200 OK | Content-Type: ") ||
				lines[1] != "Prompt: "+prompt {
				t.Fatalf("result does not start with the header and the prompt:\n%s", out)
			}
			if testing.Verbose() {
				t.Logf("%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("result lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("result has %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestWebFetchFailures(t *testing.T) {
	srv := webFetchServer(t)
	cases := []struct {
		name    string
		path    string
		want    []string
		notWant []string
	}{
		{"404 with excerpt", "/missing", []string{"the server answered 404 Not Found", "the page says: Nothing here Try the index."}, []string{"<h1>", "h1{}"}},
		{"500 excerpt clipped", "/boom", []string{"the server answered 500 Internal Server Error", "database exploded: xxx", "x…"}, []string{strings.Repeat("x", 300)}},
		{"image refused", "/png", []string{"the content type is image/png, which WebFetch does not read"}, nil},
		{"pdf refused", "/pdf", []string{"the content type is application/pdf"}, nil},
		{"untyped binary sniffed and refused", "/untyped-png", []string{"image/png (detected; the server sent no Content-Type)"}, nil},
		{"binary posing as text refused", "/fake-text", []string{"calls the content text/plain, but it is binary data"}, nil},
		{"redirect loop stopped", "/loop", []string{"stopped after 10 redirects"}, nil},
		{"redirect to another scheme", "/to-ftp", []string{"redirects to ftp://files.example/x, which is not an http or https URL"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewWebFetch(WebFetchConfig{}).Run(context.Background(), tool.ExecInput(webFetchCall(t, srv.URL+tc.path, "anything")))
			if err == nil {
				t.Fatal("Run succeeded; want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error has %q: %v", w, err)
				}
			}
			if !strings.Contains(err.Error(), srv.URL+tc.path) {
				t.Errorf("error does not name the URL: %v", err)
			}
		})
	}
}

func TestWebFetchCrossHostRedirect(t *testing.T) {
	srv := webFetchServer(t)
	res, err := NewWebFetch(WebFetchConfig{}).Run(context.Background(), tool.ExecInput(webFetchCall(t, srv.URL+"/away", "find the price")))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := res.Text()
	for _, w := range []string{
		"REDIRECT DETECTED",
		"Original URL: " + srv.URL + "/away\n",
		"Redirect URL: https://other.example/landing?x=1\n",
		"Status: 302 Found",
		`- url: "https://other.example/landing?x=1"`,
		`- prompt: "find the price"`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("result lacks %q:\n%s", w, out)
		}
	}
	if res.IsError {
		t.Errorf("a cross-host redirect is information, not an error: %s", out)
	}
}

func TestWebFetchInvalidInput(t *testing.T) {
	cases := []struct {
		name  string
		input string
		want  string
	}{
		{"missing both", `{}`, "url is required; prompt is required"},
		{"missing prompt", `{"url": "https://example.com"}`, "prompt is required"},
		{"empty url", `{"url": " ", "prompt": "p"}`, "url must not be empty"},
		{"empty prompt", `{"url": "https://example.com", "prompt": ""}`, "prompt must not be empty"},
		{"url not a string", `{"url": 7, "prompt": "p"}`, "url must be a string, got number"},
		{"unknown field", `{"url": "https://example.com", "prompt": "p", "depth": 2}`, `unknown field "depth"`},
		{"relative url", `{"url": "/docs/page", "prompt": "p"}`, "is not absolute"},
		{"no scheme", `{"url": "example.com/page", "prompt": "p"}`, "is not absolute"},
		{"ftp", `{"url": "ftp://example.com/file", "prompt": "p"}`, `has the scheme "ftp"; only http and https`},
		{"file", `{"url": "file:///etc/passwd", "prompt": "p"}`, `has the scheme "file"`},
		{"no host", `{"url": "https:///path", "prompt": "p"}`, "has no host"},
		{"unparsable", `{"url": "http://[::1", "prompt": "p"}`, "is not a valid URL"},
		{"credentials", `{"url": "https://user:secret@example.com/", "prompt": "p"}`, "carries a user name or password"},
		{"too long", `{"url": "https://example.com/` + strings.Repeat("a", 2000) + `", "prompt": "p"}`, "the limit is 2000"},
	}
	rt := &fetchRecorder{}
	w := NewWebFetch(WebFetchConfig{HTTPClient: &http.Client{Transport: rt}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.Run(context.Background(), tool.ExecInput(json.RawMessage(tc.input)))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "invalid WebFetch input: ") {
				t.Errorf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
	if got := rt.urls(); len(got) != 0 {
		t.Errorf("invalid input reached the network: %v", got)
	}
}

// fetchRecorder answers every request itself, as the handler would, and records
// the URLs asked for; nothing leaves the process.
type fetchRecorder struct {
	handler http.Handler // nil means 200 text/plain "ok"
	mu      sync.Mutex
	seen    []string
}

func (rt *fetchRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	rt.mu.Lock()
	rt.seen = append(rt.seen, req.URL.String())
	rt.mu.Unlock()
	rec := httptest.NewRecorder()
	if rt.handler == nil {
		rec.Header().Set("Content-Type", "text/plain")
		io.WriteString(rec, "ok")
	} else {
		rt.handler.ServeHTTP(rec, req)
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

func (rt *fetchRecorder) urls() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]string(nil), rt.seen...)
}

func TestWebFetchHTTPSUpgrade(t *testing.T) {
	cases := []struct {
		name      string
		url       string
		allowHTTP bool
		want      string
	}{
		{"http upgraded", "http://example.test/docs?q=1#top", false, "https://example.test/docs?q=1"},
		{"port kept", "http://example.test:8080/x", false, "https://example.test:8080/x"},
		{"https untouched", "https://example.test/x", false, "https://example.test/x"},
		{"localhost not upgraded", "http://localhost:8080/x", false, "http://localhost:8080/x"},
		{"loopback ip not upgraded", "http://127.0.0.1:8080/x", false, "http://127.0.0.1:8080/x"},
		{"loopback ipv6 not upgraded", "http://[::1]:8080/x", false, "http://[::1]:8080/x"},
		{"AllowHTTP keeps http", "http://example.test/x", true, "http://example.test/x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := &fetchRecorder{}
			w := NewWebFetch(WebFetchConfig{HTTPClient: &http.Client{Transport: rt}, AllowHTTP: tc.allowHTTP})
			res, err := w.Run(context.Background(), tool.ExecInput(webFetchCall(t, tc.url, "p")))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := rt.urls(); len(got) != 1 || got[0] != tc.want {
				t.Errorf("requested %v; want [%s]", got, tc.want)
			}
			if !strings.HasPrefix(res.Text(), "URL: "+tc.want+" | ") {
				t.Errorf("header does not name %s:\n%s", tc.want, res.Text())
			}
		})
	}
}

// TestWebFetchHTTPSUpgradeTLS follows an upgraded URL all the way through TLS: the test
// server's certificate covers example.com, and the client dials the loopback server for
// every address.
func TestWebFetchHTTPSUpgradeTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.TLS == nil {
			io.WriteString(w, "plain")
			return
		}
		io.WriteString(w, "secure via "+r.TLS.ServerName)
	}))
	defer srv.Close()
	client := srv.Client()
	tr := client.Transport.(*http.Transport).Clone()
	addr := srv.Listener.Addr().String()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	client.Transport = tr
	_, port, _ := net.SplitHostPort(addr)

	res, err := NewWebFetch(WebFetchConfig{HTTPClient: client}).Run(context.Background(),
		tool.ExecInput(webFetchCall(t, "http://example.com:"+port+"/page", "p")))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := res.Text()
	if !strings.HasPrefix(out, "URL: https://example.com:"+port+"/page | Status: 200 OK") || !strings.HasSuffix(out, "secure via example.com") {
		t.Errorf("the fetch was not upgraded to https:\n%s", out)
	}
}

func TestWebFetchRedirectHosts(t *testing.T) {
	redirect := func(to string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/start" {
				http.Redirect(w, r, to, http.StatusMovedPermanently)
				return
			}
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "landed")
		})
	}
	cases := []struct {
		name     string
		start    string
		to       string
		followed bool
	}{
		{"same host relative", "https://example.test/start", "/end", true},
		{"www added", "https://example.test/start", "https://www.example.test/end", true},
		{"www dropped", "https://www.example.test/start", "https://example.test/end", true},
		{"host case", "https://example.test/start", "https://EXAMPLE.test/end", true},
		{"http to https upgrade", "http://localhost/start", "https://localhost/end", true},
		{"subdomain", "https://example.test/start", "https://docs.example.test/end", false},
		{"other host", "https://example.test/start", "https://example.org/end", false},
		{"other port", "https://example.test/start", "https://example.test:8443/end", false},
		{"https to http on loopback", "https://localhost/start", "http://localhost/end", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := &fetchRecorder{handler: redirect(tc.to)}
			w := NewWebFetch(WebFetchConfig{HTTPClient: &http.Client{Transport: rt}})
			res, err := w.Run(context.Background(), tool.ExecInput(webFetchCall(t, tc.start, "p")))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			out := res.Text()
			seen := rt.urls()
			if tc.followed {
				if len(seen) != 2 || !strings.HasSuffix(out, "landed") {
					t.Errorf("redirect to %s not followed (requests %v):\n%s", tc.to, seen, out)
				}
				return
			}
			if len(seen) != 1 || !strings.HasPrefix(out, "REDIRECT DETECTED") {
				t.Errorf("redirect to %s followed (requests %v):\n%s", tc.to, seen, out)
			}
		})
	}
}

// hangingFetchServer accepts requests and answers none until the request is abandoned.
func hangingFetchServer(t *testing.T) (*httptest.Server, <-chan struct{}) {
	started := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case started <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, started
}

func TestWebFetchCancel(t *testing.T) {
	srv, started := hangingFetchServer(t)
	w := NewWebFetch(WebFetchConfig{})
	cancelOnStart := func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		go func() {
			<-started
			cancel()
		}()
		return ctx
	}

	_, err := w.Run(cancelOnStart(), tool.ExecInput(webFetchCall(t, srv.URL+"/slow", "p")))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v; want one wrapping context.Canceled", err)
	}

	// Through the registry, a call cancelled mid-fetch reads as interrupted.
	res := tool.NewRegistry(w).Run(cancelOnStart(), tool.Call{ID: "1", Name: "WebFetch", Input: webFetchCall(t, srv.URL+"/slow", "p")})
	if !res.IsError || !strings.HasPrefix(res.Text(), "Interrupted") {
		t.Errorf("registry result %+v; want Interrupted", res)
	}
}

func TestWebFetchTimeout(t *testing.T) {
	srv, _ := hangingFetchServer(t)
	w := NewWebFetch(WebFetchConfig{Timeout: 1}) // 1ns: the deadline passes before any answer
	_, err := w.Run(context.Background(), tool.ExecInput(webFetchCall(t, srv.URL+"/slow", "p")))
	if err == nil || !strings.Contains(err.Error(), "no complete response within 1ns") {
		t.Fatalf("error %v; want a timeout naming the limit", err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a timeout must not read as the caller's cancellation: %v", err)
	}
}

// The tool follows redirects itself; the caller's client must keep following them.
func TestWebFetchKeepsCallerClient(t *testing.T) {
	rt := &fetchRecorder{handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/end", http.StatusFound)
			return
		}
		io.WriteString(w, "landed")
	})}
	client := &http.Client{Transport: rt}
	NewWebFetch(WebFetchConfig{HTTPClient: client})
	resp, err := client.Get("https://example.test/start")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/end" {
		t.Errorf("the caller's client no longer follows redirects: %s at %s", resp.Status, resp.Request.URL)
	}
}
