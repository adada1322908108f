// Package openai is the provider for the OpenAI Chat Completions API and the servers
// that speak it (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter …), built on the official
// openai-go SDK. It streams by default, retries transient failures itself under an
// llm.RetryPolicy, and maps the wire format onto ouro's Anthropic-shaped messages.
package openai

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/openai/endpoint"
)

// Config configures the provider. Empty fields fall back to the environment.
type Config struct {
	// APIKey authenticates; empty means OPENAI_API_KEY. Only required against the OpenAI
	// API itself: local servers usually need none.
	APIKey string
	// BaseURL is the API root, e.g. http://localhost:11434/v1 for Ollama; empty means
	// OPENAI_BASE_URL, and when that is unset too, the OpenAI API.
	BaseURL string
	// MaxTokens caps the output when a request sets no limit; 0 means the model's known
	// maximum (llm.LookupModel).
	MaxTokens int
	// Retry bounds the retries of 429, 5xx and dropped connections; the zero value is
	// the default policy.
	Retry llm.RetryPolicy
	// HTTPClient replaces the SDK's default client (proxies, tests).
	HTTPClient *http.Client
	// NoStream asks for whole answers instead of server-sent events, for servers whose
	// streaming is broken.
	NoStream bool
	// StreamIdle bounds the silence between two chunks of a streamed answer, StreamFirst
	// the wait for the first (a local model on a CPU may read for minutes first); past
	// either, the attempt is retried like a dropped connection. 0 means
	// llm.DefaultStreamIdle and llm.DefaultStreamFirst.
	StreamIdle, StreamFirst time.Duration
}

// Provider is an llm.Provider speaking Chat Completions. It is safe for concurrent use.
type Provider struct {
	// chat is the one SDK service ouro calls; building it alone (not sdk.NewClient, which
	// builds every service) keeps the others' code out of the binary.
	chat      sdk.ChatCompletionService
	retry     llm.RetryPolicy
	maxTokens int
	noStream  bool
	// streamFirst and streamIdle are Config.StreamFirst and StreamIdle (0: llm's defaults).
	streamFirst, streamIdle time.Duration
	// maxCompletionField sends max_completion_tokens, which OpenAI's reasoning models
	// require; compatible servers get the older max_tokens, which all of them accept.
	maxCompletionField bool
}

// New returns a provider for cfg.
func New(cfg Config) (*Provider, error) {
	e, err := endpoint.Resolve(cfg.APIKey, cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	// The SDK's own retries are off: ours follow llm.RetryPolicy and tell the UI when a
	// half-streamed answer starts over. The production base URL comes first: the chat
	// service built alone (not through sdk.NewClient) gets no defaults, and without it every
	// request to the OpenAI API failed with "base url is not set".
	opts := []option.RequestOption{option.WithEnvironmentProduction(), option.WithMaxRetries(0)}
	if e.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(e.BaseURL))
	}
	if e.APIKey != "" {
		opts = append(opts, option.WithAPIKey(e.APIKey))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Provider{
		chat:               sdk.NewChatCompletionService(opts...),
		retry:              cfg.Retry,
		maxTokens:          cfg.MaxTokens,
		noStream:           cfg.NoStream,
		streamIdle:         cfg.StreamIdle,
		streamFirst:        cfg.StreamFirst,
		maxCompletionField: e.Official,
	}, nil
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "openai" }

// Complete implements llm.Provider. The model name is sent as given.
func (p *Provider) Complete(ctx context.Context, req *llm.Request, onDelta llm.StreamFunc) (*llm.Response, error) {
	start := time.Now()
	if req.WebSearch != nil {
		// Chat Completions has no server-side search; answering without one would pass
		// the model's memory off as search results.
		return nil, &llm.Error{Kind: llm.ErrKindInvalid, Message: "the Chat Completions API has no web search tool", Err: llm.ErrNoWebSearch}
	}
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.maxTokens
	}
	if maxTokens <= 0 {
		maxTokens = llm.LookupModel(req.Model).MaxOutput
	}
	params, err := buildParams(req, maxTokens, p.maxCompletionField)
	if err != nil {
		return nil, &llm.Error{Kind: llm.ErrKindInvalid, Message: "converting the request: " + err.Error(), Err: err}
	}
	if !p.noStream {
		params.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)}
	}

	attempts := p.retry.Attempts()
	for attempt := 1; ; attempt++ {
		var resp *llm.Response
		var delivered bool
		if p.noStream {
			resp, err = p.whole(ctx, params, onDelta)
		} else {
			resp, delivered, err = p.stream(ctx, params, onDelta)
		}
		if err == nil {
			resp.Duration = time.Since(start)
			if resp.Model == "" {
				resp.Model = req.Model
			}
			if n := textToolCalls(resp, req.Tools, "call_"+resp.ID); n > 0 {
				slog.Info("openai: tool calls written as text were read as calls", "model", req.Model, "calls", n)
			}
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("openai: model call interrupted after %d attempt(s): %w", attempt, ctx.Err())
		}
		e := classify(err)
		e.Attempts = attempt
		if !e.Retryable() || attempt >= attempts {
			return nil, e
		}
		delay := p.retry.Delay(attempt, retryAfter(err))
		slog.Debug("openai: retrying model call", "model", req.Model, "attempt", attempt, "of", attempts, "delay", delay, "err", e)
		if delivered {
			onDelta(llm.Delta{Kind: "retry", Text: fmt.Sprintf("%s; starting the answer over (attempt %d of %d)", e.Message, attempt+1, attempts)})
		}
		if attempt >= 2 && onDelta != nil {
			onDelta(llm.Waiting(e, delay, attempt+1, attempts))
		}
		if err := llm.Sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("openai: model call interrupted while waiting to retry (%s): %w", e.Message, err)
		}
	}
}

// stream makes one streamed attempt. delivered reports whether deltas reached onDelta,
// so a retry can tell the UI to drop them.
func (p *Provider) stream(ctx context.Context, params sdk.ChatCompletionNewParams, onDelta llm.StreamFunc) (resp *llm.Response, delivered bool, err error) {
	sctx, watch, stop := llm.WatchIdle(ctx, p.streamFirst, p.streamIdle)
	defer stop()
	s := p.chat.NewStreaming(sctx, params)
	defer s.Close()
	var acc sdk.ChatCompletionAccumulator
	var reasoning strings.Builder
	for s.Next() {
		watch.Touch()
		chunk := s.Current()
		if !acc.AddChunk(chunk) {
			return nil, delivered, fmt.Errorf("%w: chunk %q does not continue the stream", errMalformed, chunk.ID)
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if r := reasoningOf(ch.Delta.JSON.ExtraFields); r != "" {
				reasoning.WriteString(r)
				onDelta(llm.Delta{Kind: "thinking", Text: r})
				delivered = true
			}
			for _, text := range []string{ch.Delta.Content, ch.Delta.Refusal} {
				if text != "" {
					onDelta(llm.Delta{Kind: "text", Text: text})
					delivered = true
				}
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, delivered, watch.Cause(sctx, err)
	}
	if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
		return nil, delivered, errStreamIncomplete
	}
	resp, err = toResponse(&acc.ChatCompletion, reasoning.String())
	if err != nil {
		return nil, delivered, fmt.Errorf("%w: %v", errMalformed, err)
	}
	return resp, delivered, nil
}

// whole makes one non-streamed attempt; the answer's text reaches onDelta in one piece
// so a UI that shows deltas shows it too.
func (p *Provider) whole(ctx context.Context, params sdk.ChatCompletionNewParams, onDelta llm.StreamFunc) (*llm.Response, error) {
	cc, err := p.chat.New(ctx, params)
	if err != nil {
		return nil, err
	}
	var reasoning string
	if len(cc.Choices) > 0 {
		reasoning = reasoningOf(cc.Choices[0].Message.JSON.ExtraFields)
	}
	resp, err := toResponse(cc, reasoning)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errMalformed, err)
	}
	for _, b := range resp.Message.Content {
		switch b.Type {
		case llm.BlockThinking:
			onDelta(llm.Delta{Kind: "thinking", Text: b.Thinking})
		case llm.BlockText:
			onDelta(llm.Delta{Kind: "text", Text: b.Text})
		}
	}
	return resp, nil
}
