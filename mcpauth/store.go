// Package mcpauth is OAuth for remote (streamable HTTP) MCP servers, on the official Go
// SDK's auth package: discovery, client registration (a configured client id, a client
// metadata document, or dynamic registration), the PKCE authorization-code flow with a
// loopback redirect listener, and tokens kept in ouro's home (0600), refreshed as they
// expire. A session never opens a browser: a server that needs a login is reported as
// needing one, and `ouro mcp login NAME` runs the flow.
package mcpauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/oauth2"
)

// Store keeps each server's tokens in one file of Dir (0700), named by a hash of the
// server's URL: a token goes only to the URL it was obtained for, whatever the server is
// called in a configuration.
type Store struct{ Dir string }

// Saved is what a login leaves: the token and what refreshing it needs.
type Saved struct {
	URL          string           `json:"url"`
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret,omitempty"`
	TokenURL     string           `json:"token_url"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style"`
	Scopes       []string         `json:"scopes,omitempty"`
	Token        *oauth2.Token    `json:"token"`
}

func (s Store) path(url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:12])+".json")
}

// Load returns the tokens saved for url, nil when there are none.
func (s Store) Load(url string) (*Saved, error) {
	if s.Dir == "" {
		return nil, nil
	}
	p := s.path(url)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; remove it and log in again", p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var sv Saved
	if err := json.Unmarshal(data, &sv); err != nil || sv.Token == nil {
		return nil, fmt.Errorf("%s is damaged (%v); log in again", p, err)
	}
	if sv.URL != url {
		return nil, nil // a hash collision, or a file copied by hand: not this server's
	}
	return &sv, nil
}

// Save writes sv for its URL, readable by the user alone, replacing the file at once.
func (s Store) Save(sv *Saved) error {
	if s.Dir == "" {
		return errors.New("no folder to keep MCP tokens in")
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(sv, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.Dir, ".token-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), s.path(sv.URL))
}

// Delete forgets url's tokens; it reports whether there were any.
func (s Store) Delete(url string) (bool, error) {
	err := os.Remove(s.path(url))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// config is the OAuth client a saved login refreshes with.
func (sv *Saved) config() *oauth2.Config {
	return &oauth2.Config{ClientID: sv.ClientID, ClientSecret: sv.ClientSecret,
		Endpoint: oauth2.Endpoint{TokenURL: sv.TokenURL, AuthStyle: sv.AuthStyle}, Scopes: sv.Scopes}
}

// saving hands out tokens from base and writes each new one (a refresh) to the store,
// so the next session starts with it. When a refresh fails, another ouro process may
// have refreshed first (a refresh token is often good for one use): the token it saved
// is taken instead, when it is a different one that is still valid.
type saving struct {
	mu    sync.Mutex
	base  oauth2.TokenSource
	cfg   *oauth2.Config
	ctx   context.Context
	store Store
	sv    Saved
	warn  func(error)
}

func (t *saving) Token() (*oauth2.Token, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tok, err := t.base.Token()
	if err != nil {
		other, lerr := t.store.Load(t.sv.URL)
		if lerr != nil || other == nil || other.Token.AccessToken == t.sv.Token.AccessToken || !other.Token.Valid() {
			return nil, err
		}
		t.sv.Token, tok = other.Token, other.Token
		t.base = t.cfg.TokenSource(t.ctx, other.Token)
		return tok, nil
	}
	if t.sv.Token == nil || tok.AccessToken != t.sv.Token.AccessToken {
		t.sv.Token = tok
		if err := t.store.Save(&t.sv); err != nil && t.warn != nil {
			t.warn(err)
		}
	}
	return tok, nil
}

// newSaving is the token source of a login saved as sv: it refreshes through cfg's
// token endpoint (with ctx's HTTP client) and saves what it gets.
func newSaving(ctx context.Context, cfg *oauth2.Config, store Store, sv *Saved, warn func(error)) *saving {
	return &saving{base: cfg.TokenSource(ctx, sv.Token), cfg: cfg, ctx: ctx, store: store, sv: *sv, warn: warn}
}

// tokenSource is a saved login's token source.
func (s Store) tokenSource(sv *Saved, client *http.Client, warn func(error)) oauth2.TokenSource {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, client)
	return newSaving(ctx, sv.config(), s, sv, warn)
}
