package mcpauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/ouroagent/ouro/mcpauth"
	"github.com/ouroagent/ouro/mcpauth/authtest"
)

func connect(t *testing.T, endpoint string, h auth.OAuthHandler) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, OAuthHandler: h, MaxRetries: 1}, nil)
}

func whoami(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// A local program that hits the loopback listener first, with a code of its own, is
// turned away: only the redirect carrying the authorization URL's state counts.
func TestLoginIgnoresForeignCallbacks(t *testing.T) {
	as := authtest.New()
	defer as.Close()
	store := mcpauth.Store{Dir: t.TempDir()}
	var foreign int
	open := func(authURL string) error {
		u, _ := url.Parse(authURL)
		redirect := u.Query().Get("redirect_uri")
		for _, q := range []string{"code=evil&state=wrong", "code=evil"} {
			resp, err := http.Get(redirect + "?" + q)
			if err != nil {
				return err
			}
			resp.Body.Close()
			foreign = resp.StatusCode
			if foreign != http.StatusBadRequest {
				t.Errorf("a foreign callback (%s) got %d", q, foreign)
			}
		}
		resp, err := http.Get(authURL) // the user approves; the server redirects to the listener
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	h, done, err := mcpauth.Login(store, as.URL()+"/mcp", mcpauth.Client{}, open, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	cs, err := connect(t, as.URL()+"/mcp", h)
	if err != nil {
		t.Fatalf("connect: %v (events %v)", err, as.Events())
	}
	defer cs.Close()
	sv, err := store.Load(as.URL() + "/mcp")
	if err != nil || sv == nil || !strings.Contains(whoami(t, cs), sv.Token.AccessToken) {
		t.Fatalf("saved %v %v", sv, err)
	}
	if got := strings.Join(as.Events(), ","); got != "register client-1,authorize client-1,token client-1" {
		t.Fatalf("events %s", got)
	}
}

// The user refusing at the authorization server ends the login with the server's word.
func TestLoginRefused(t *testing.T) {
	as := authtest.New()
	defer as.Close()
	open := func(authURL string) error {
		u, _ := url.Parse(authURL)
		q := url.Values{"error": {"access_denied"}, "error_description": {"the user said no"}, "state": {u.Query().Get("state")}}
		resp, err := http.Get(u.Query().Get("redirect_uri") + "?" + q.Encode())
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	h, done, err := mcpauth.Login(mcpauth.Store{Dir: t.TempDir()}, as.URL()+"/mcp", mcpauth.Client{}, open, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if _, err := connect(t, as.URL()+"/mcp", h); err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Fatalf("connect: %v", err)
	}
}

// A configured client id is used as is (no registration), its secret sent to the token
// endpoint.
func TestLoginPreregistered(t *testing.T) {
	as := authtest.New()
	defer as.Close()
	as.PreID, as.PreSecret = "pre-id", "pre-secret"
	open := func(authURL string) error {
		resp, err := http.Get(authURL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	h, done, err := mcpauth.Login(mcpauth.Store{Dir: t.TempDir()}, as.URL()+"/mcp", mcpauth.Client{ID: "pre-id", Secret: "pre-secret"}, open, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	cs, err := connect(t, as.URL()+"/mcp", h)
	if err != nil {
		t.Fatalf("connect: %v (events %v)", err, as.Events())
	}
	cs.Close()
	if got := strings.Join(as.Events(), ","); got != "authorize pre-id,token pre-id" {
		t.Fatalf("events %s", got)
	}
}

// A session's handler: no token → NeedsLoginError at once; a token saved for another URL
// is never sent.
func TestSessionNeedsLogin(t *testing.T) {
	as := authtest.New()
	defer as.Close()
	store := mcpauth.Store{Dir: t.TempDir()}
	if err := store.Save(&mcpauth.Saved{URL: "https://elsewhere.example/mcp", TokenURL: as.URL() + "/token",
		Token: &oauth2.Token{AccessToken: "not-for-you", Expiry: time.Now().Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	h, err := mcpauth.Session(store, as.URL()+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = connect(t, as.URL()+"/mcp", h)
	var nl *mcpauth.NeedsLoginError
	if !errors.As(err, &nl) {
		t.Fatalf("connect: %v", err)
	}
	if ev := as.Events(); len(ev) != 0 {
		t.Fatalf("a session went to the authorization server: %v", ev)
	}
}

// A token file that is a symlink (someone pointing ouro at another file) is refused.
func TestStoreRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	store := mcpauth.Store{Dir: dir}
	u := "https://x.example/mcp"
	if err := store.Save(&mcpauth.Saved{URL: u, Token: &oauth2.Token{AccessToken: "a"}}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	target := filepath.Join(t.TempDir(), "elsewhere")
	os.Rename(files[0], target)
	if err := os.Symlink(target, files[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Load(u); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("load: %v", err)
	}
}

// Two sessions (two ouro processes) find the saved token expired at once: the first
// refreshes it, which spends the refresh token; the second's refresh fails, and it takes
// the token the first saved instead of giving up.
// expiredLogin logs in to a fresh authorization server, keeping the tokens in dir, and
// makes the saved access token expired, so the next session refreshes it.
func expiredLogin(t *testing.T, dir string) (*authtest.Server, mcpauth.Store, string) {
	t.Helper()
	as := authtest.New()
	t.Cleanup(as.Close)
	store := mcpauth.Store{Dir: dir}
	endpoint := as.URL() + "/mcp"
	open := func(authURL string) error {
		resp, err := http.Get(authURL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	h, done, err := mcpauth.Login(store, endpoint, mcpauth.Client{}, open, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := connect(t, endpoint, h)
	done()
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	sv, _ := store.Load(endpoint)
	sv.Token.Expiry = time.Now().Add(-time.Minute)
	if err := store.Save(sv); err != nil {
		t.Fatal(err)
	}
	return as, store, endpoint
}

func TestTwoSessionsRefreshOneLogin(t *testing.T) {
	as, store, endpoint := expiredLogin(t, t.TempDir())
	a, _ := mcpauth.Session(store, endpoint, nil)
	b, _ := mcpauth.Session(store, endpoint, nil)
	for i, h := range []auth.OAuthHandler{a, b} {
		cs, err := connect(t, endpoint, h)
		if err != nil {
			t.Fatalf("session %d: %v (events %v)", i, err, as.Events())
		}
		if got := whoami(t, cs); !strings.HasPrefix(got, "token at-") {
			t.Fatalf("session %d: %s", i, got)
		}
		cs.Close()
	}
	if n := strings.Count(strings.Join(as.Events(), ","), "refresh"); n != 1 {
		t.Fatalf("%d refreshes: %v", n, as.Events())
	}
}

// A refreshed token that cannot be saved (the folder is gone, a file in its place) does
// not fail the session, and the user hears of it once.
func TestRefreshSaveFailureIsReported(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	_, store, endpoint := expiredLogin(t, dir)
	var warned []error
	s, err := mcpauth.Session(store, endpoint, func(err error) { warned = append(warned, err) })
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dir)
	os.WriteFile(dir, []byte("not a folder"), 0o600)
	cs, err := connect(t, endpoint, s)
	if err != nil {
		t.Fatalf("the session should go on with the refreshed token: %v", err)
	}
	whoami(t, cs)
	cs.Close()
	if len(warned) != 1 {
		t.Fatalf("the failed save should be reported once, got %v", warned)
	}
}
