// Package anthropic is the llm.Provider for the Anthropic Messages API, built on the
// official SDK. It streams by default, retries transient failures itself (429, 529, 5xx,
// dropped connections and streams cut mid-way) under an llm.RetryPolicy, falls back to
// another model after repeated overloads, and marks prompt-cache breakpoints so a long
// agent conversation is not billed in full on every turn.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/ouroagent/ouro/llm"
)

// Config configures a Provider. The zero value of every field has a sensible default.
type Config struct {
	// AuthToken is sent as a bearer token when there is no APIKey; empty means
	// $ANTHROPIC_AUTH_TOKEN.
	AuthToken string
	// APIKey authenticates the requests; empty means $ANTHROPIC_API_KEY.
	APIKey string
	// BaseURL replaces https://api.anthropic.com; empty means $ANTHROPIC_BASE_URL, if set.
	BaseURL string
	// FallbackModel answers instead of the requested model after Retry.Fallback529()
	// consecutive overloaded (529) answers; empty means no fallback.
	FallbackModel string
	// MaxTokens is used when a request does not set one; 0 means the model's maximum
	// output as listed by llm.LookupModel.
	MaxTokens int
	// Retry bounds the retries of transient failures.
	Retry llm.RetryPolicy
	// HTTPClient sends the requests; nil means a client with a 10-minute response-header
	// timeout, the SDK's own default.
	HTTPClient *http.Client
	// StreamIdle bounds the silence between two events of a streamed answer, StreamFirst
	// the wait for its first event; past either, the attempt is retried like a dropped
	// connection. 0 means llm.DefaultStreamIdle and llm.DefaultStreamFirst.
	StreamIdle, StreamFirst time.Duration
	// NoStream asks for whole JSON answers instead of server-sent events, for proxies
	// that do not pass streams through. Deltas are then delivered once the answer is in.
	NoStream bool
	// Platform, when set (package cloud: Amazon Bedrock, Google Vertex AI), sends the
	// requests there instead, authenticated its way: no key, no base URL.
	Platform []option.RequestOption
	// PlatformModel is the platform's id for a Claude model name (nil: the name itself).
	PlatformModel func(string) string
	// NoPromptCache sends no cache_control (DISABLE_PROMPT_CACHING).
	NoPromptCache bool
	// Keys, when set (apiKeyHelper) and no APIKey or AuthToken is, gives the key of each
	// request, sent as X-Api-Key and as a bearer token, as Claude Code sends a helper's
	// key; a 401 asks it for a new key once and retries at once.
	Keys KeySource
}

// KeySource gives the key requests are sent with (package keyhelper).
type KeySource interface {
	// Key is the key to use now.
	Key(ctx context.Context) (string, error)
	// Refresh is a new key after the API refused refused.
	Refresh(ctx context.Context, refused string) (string, error)
}

// Provider talks to the Anthropic Messages API. It is safe for concurrent use.
type Provider struct {
	cfg Config
	// messages is the one SDK service ouro calls; building it alone (not sdk.NewClient, which
	// builds every service, the whole beta API included) keeps the others' code out of the
	// binary.
	messages sdk.MessageService
}

// New returns a provider for cfg, or an error when no API key is configured.
func New(cfg Config) (*Provider, error) {
	if len(cfg.Platform) > 0 {
		return newOnPlatform(cfg)
	}
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("ANTHROPIC_API_KEY")
	}
	authToken := cfg.AuthToken
	if cfg.APIKey == "" && authToken == "" {
		// A bearer token instead of a key (gateways and proxies), as Claude Code reads it.
		authToken = os.Getenv("ANTHROPIC_AUTH_TOKEN")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = os.Getenv("ANTHROPIC_BASE_URL")
	}
	if cfg.APIKey != "" || authToken != "" {
		cfg.Keys = nil // a key set outright comes first, as in Claude Code
	}
	if cfg.APIKey == "" && authToken == "" && cfg.Keys == nil {
		return nil, errors.New("anthropic: no API key: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or run `ouro demo`, which needs no key)")
	}
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("anthropic: max tokens must not be negative, got %d", cfg.MaxTokens)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient()
	}
	// The environment was read above; the SDK must not add credentials or headers of its
	// own from it. Its retries are off because Complete retries with ouro's policy.
	// The production base URL comes first: the message service built alone (not through
	// sdk.NewClient) gets no defaults, and without it every request failed with "base url
	// is not set" when only a key was configured.
	opts := []option.RequestOption{
		option.WithEnvironmentProduction(),
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		// The API documents one header for a key, x-api-key, and it is the one Claude Code
		// sends; this SDK version's WithAPIKey sends the key as a bearer token instead, the
		// form the API takes for OAuth tokens (ANTHROPIC_AUTH_TOKEN), not for keys.
		opts = append(opts, option.WithHeader("X-Api-Key", cfg.APIKey))
	} else if authToken != "" {
		opts = append(opts, option.WithAuthToken(authToken))
	}
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("anthropic: base URL %q is not an absolute http(s) URL", cfg.BaseURL)
		}
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	return &Provider{cfg: cfg, messages: sdk.NewMessageService(opts...)}, nil
}

func defaultHTTPClient() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.ResponseHeaderTimeout = 10 * time.Minute
		return &http.Client{Transport: t}
	}
	return &http.Client{}
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "anthropic" }

// Complete implements llm.Provider. Transient failures restart the whole request, up to
// Retry.Attempts() attempts in all; when a failed attempt had already streamed deltas,
// onDelta first gets a "retry" delta so the caller can drop what it showed.
func (p *Provider) Complete(ctx context.Context, req *llm.Request, onDelta llm.StreamFunc) (*llm.Response, error) {
	start := time.Now()
	if req.Model == "" {
		return nil, &llm.Error{Kind: llm.ErrKindInvalid, Message: "the request names no model"}
	}
	params, err := toParams(req)
	if err != nil {
		return nil, &llm.Error{Kind: llm.ErrKindInvalid, Message: err.Error(), Err: err}
	}
	if p.cfg.NoPromptCache {
		dropCacheControl(&params)
	}
	policy := p.cfg.Retry
	maxAttempts := policy.Attempts()
	model := req.Model
	overloaded := 0
	var key, refused string // refused: the key a 401 answered, until a new one is asked for
	refreshed := false
	for attempt := 1; ; attempt++ {
		params.Model = sdk.Model(model)
		if p.cfg.PlatformModel != nil {
			params.Model = sdk.Model(p.cfg.PlatformModel(model))
		}
		params.MaxTokens = int64(p.maxTokens(req, model))
		applyThinking(&params, req, model)
		delivered := false
		var auth []option.RequestOption
		if p.cfg.Keys != nil {
			if key, err = p.key(ctx, refused); err != nil {
				return nil, err
			}
			refused = ""
			auth = keyHeaders(key)
		}
		msg, err := p.attempt(ctx, params, onDelta, &delivered, auth...)
		if err == nil {
			resp := toResponse(msg, model)
			resp.Duration = time.Since(start)
			return resp, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("anthropic: %s request abandoned on attempt %d: %w", model, attempt, ctxErr)
		}
		e, retryAfter := classify(err)
		e.Attempts = attempt
		if e.Status == http.StatusUnauthorized && p.cfg.Keys != nil && !refreshed {
			// The helper's key was refused: ask it once for a new one and retry at once.
			refreshed, refused = true, key
			continue
		}
		if !e.Retryable() || attempt >= maxAttempts {
			return nil, e
		}
		wait := policy.Delay(attempt, retryAfter)
		if e.Kind == llm.ErrKindOverloaded {
			overloaded++
		} else {
			overloaded = 0
		}
		if fb := p.cfg.FallbackModel; fb != "" && model != fb && overloaded >= policy.Fallback529() {
			// The fallback model is served from other capacity, so there is nothing to
			// wait for before asking it.
			model, overloaded, wait = fb, 0, 0
		}
		if delivered && onDelta != nil {
			onDelta(llm.Delta{Kind: "retry", Text: fmt.Sprintf("%v; retrying (attempt %d of %d)", e, attempt+1, maxAttempts)})
		}
		if attempt >= 2 && onDelta != nil {
			onDelta(llm.Waiting(e, wait, attempt+1, maxAttempts))
		}
		if err := llm.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("anthropic: waiting %v to retry after %v: %w", wait.Round(time.Millisecond), e, err)
		}
	}
}

// maxTokens is the request's limit, else the configured one, else the model's maximum.
func (p *Provider) maxTokens(req *llm.Request, model string) int {
	switch {
	case req.MaxTokens > 0:
		return req.MaxTokens
	case p.cfg.MaxTokens > 0:
		return p.cfg.MaxTokens
	default:
		return llm.LookupModel(model).MaxOutput
	}
}

// attempt makes one request, streamed unless NoStream is set. delivered reports whether
// any delta reached onDelta, so a retry can tell the caller to discard them.
func (p *Provider) attempt(ctx context.Context, params sdk.MessageNewParams, onDelta llm.StreamFunc, delivered *bool, auth ...option.RequestOption) (*sdk.Message, error) {
	if p.cfg.NoStream {
		msg, err := p.messages.New(ctx, params, append(auth, option.WithRequestTimeout(nonStreamTimeout(params.MaxTokens)))...)
		if err != nil {
			return nil, err
		}
		if onDelta != nil {
			for _, b := range msg.Content {
				switch {
				case b.Type == "thinking" && b.Thinking != "":
					onDelta(llm.Delta{Kind: "thinking", Text: b.Thinking})
				case b.Type == "text" && b.Text != "":
					onDelta(llm.Delta{Kind: "text", Text: b.Text})
				}
			}
		}
		return msg, nil
	}
	return p.stream(ctx, params, onDelta, delivered, auth...)
}

// nonStreamTimeout is how long a whole answer of maxTokens may take: the SDK's estimate
// (an hour for 128k tokens), at least ten minutes. Passing it explicitly keeps the SDK
// from refusing large non-streamed requests outright.
func nonStreamTimeout(maxTokens int64) time.Duration {
	d := time.Duration(float64(time.Hour) * float64(maxTokens) / 128_000)
	return max(d, 10*time.Minute)
}
