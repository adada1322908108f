package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Client is how ouro registers with a server's authorization server: a client id (and
// secret) the user configured, else a client metadata document URL when the server
// accepts those, else dynamic client registration.
type Client struct {
	ID, Secret  string
	MetadataURL string
	// CallbackPort is the loopback port of the redirect (0: any free one); a
	// pre-registered client usually needs the one it was registered with.
	CallbackPort int
}

// NeedsLoginError is a server answering 401 (or 403 insufficient_scope) to a session
// that has no valid token for it.
type NeedsLoginError struct{ URL string }

func (e *NeedsLoginError) Error() string {
	return "the server needs an OAuth login (" + e.URL + ")"
}

// Session is the OAuth handler of a session: it sends the saved token (refreshing it as
// it expires, and saving the new one) and never starts a login: a server that refuses
// it ends the connection with a NeedsLoginError.
func Session(store Store, serverURL string, warn func(error)) (auth.OAuthHandler, error) {
	sv, err := store.Load(serverURL)
	if err != nil {
		return nil, err
	}
	h := &sessionHandler{url: serverURL}
	if sv != nil {
		h.ts = store.tokenSource(sv, http.DefaultClient, warn)
	}
	return h, nil
}

type sessionHandler struct {
	url string
	ts  oauth2.TokenSource
}

func (h *sessionHandler) TokenSource(context.Context) (oauth2.TokenSource, error) { return h.ts, nil }

func (h *sessionHandler) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	if resp.StatusCode == http.StatusForbidden {
		cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		step := false
		for _, c := range cs {
			step = step || c.Params["error"] == "insufficient_scope"
		}
		if !step {
			return nil // a plain refusal: the request is retried and its error reported
		}
	}
	return &NeedsLoginError{URL: h.url}
}

// Login is the OAuth handler that logs in: when the server asks for authorization it
// discovers the authorization server, registers (see Client), sends the user to the
// authorization URL through open (ouro prints it and starts a browser), waits for the
// redirect on a loopback listener, exchanges the code (PKCE) and saves the tokens.
// close ends the listener.
func Login(store Store, serverURL string, c Client, open func(string) error, httpClient *http.Client) (h auth.OAuthHandler, close func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(c.CallbackPort))
	if err != nil {
		return nil, nil, fmt.Errorf("the OAuth redirect listener cannot start on 127.0.0.1:%d: %v", c.CallbackPort, err)
	}
	cb := &callback{results: make(chan callbackResult, 1)}
	srv := &http.Server{Handler: cb, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	close = func() { srv.Close() }
	redirect := "http://" + ln.Addr().String() + "/callback"
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		Client:              httpClient,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "ouro",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}}},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return cb.await(ctx, args.URL, open)
		},
		NewTokenSource: func(ctx context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			sv := &Saved{URL: serverURL, ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, TokenURL: oc.Endpoint.TokenURL,
				AuthStyle: oc.Endpoint.AuthStyle, Scopes: oc.Scopes, Token: tok}
			if err := store.Save(sv); err != nil {
				return nil, fmt.Errorf("the token could not be saved: %w", err)
			}
			return newSaving(ctx, oc, store, sv, nil), nil
		},
	}
	if c.ID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: c.ID}
		if c.Secret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: c.Secret}
		}
	}
	if c.MetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: c.MetadataURL}
	}
	ah, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		close()
		return nil, nil, err
	}
	return ah, close, nil
}

// callback receives the authorization server's redirect: only one carrying the state of
// the authorization URL just opened counts (another local program cannot slip in a code).
type callback struct {
	mu      sync.Mutex
	state   string
	results chan callbackResult
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

func (cb *callback) await(ctx context.Context, authURL string, open func(string) error) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	cb.mu.Lock()
	cb.state = u.Query().Get("state")
	cb.mu.Unlock()
	if err := open(authURL); err != nil {
		return nil, err
	}
	select {
	case r := <-cb.results:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("no authorization came back: %w", ctx.Err())
	}
}

func (cb *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/callback" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	cb.mu.Lock()
	want := cb.state
	if want == "" || q.Get("state") != want {
		cb.mu.Unlock()
		http.Error(w, "This is not the authorization ouro is waiting for.", http.StatusBadRequest)
		return
	}
	cb.state = "" // one answer per authorization URL
	cb.mu.Unlock()
	var res callbackResult
	if e := q.Get("error"); e != "" {
		res.err = fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "<p>Authorization failed: %s. You can close this tab.</p>", html.EscapeString(e))
	} else if q.Get("code") == "" {
		res.err = errors.New("the authorization server's redirect carries no code")
		http.Error(w, "No authorization code.", http.StatusBadRequest)
	} else {
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		fmt.Fprint(w, "<p>ouro is authorized. You can close this tab.</p>")
	}
	select {
	case cb.results <- res:
	default:
	}
}
