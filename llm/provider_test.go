package llm_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

func TestUsageAddAndTotal(t *testing.T) {
	a := llm.Usage{InputTokens: 1, OutputTokens: 20, CacheCreationInputTokens: 300, CacheReadInputTokens: 4000}
	b := llm.Usage{InputTokens: 50000, OutputTokens: 600000, CacheCreationInputTokens: 7000000, CacheReadInputTokens: 80000000}

	got := a.Add(b)
	want := llm.Usage{InputTokens: 50001, OutputTokens: 600020, CacheCreationInputTokens: 7000300, CacheReadInputTokens: 80004000}
	if got != want {
		t.Errorf("Add = %+v, want %+v", got, want)
	}
	if a.Add(b) != b.Add(a) {
		t.Errorf("Add is not commutative")
	}
	if a.Add(llm.Usage{}) != a {
		t.Errorf("adding zero changed the usage")
	}
	if a != (llm.Usage{InputTokens: 1, OutputTokens: 20, CacheCreationInputTokens: 300, CacheReadInputTokens: 4000}) {
		t.Errorf("Add modified its receiver: %+v", a)
	}

	if got := a.Total(); got != 4321 {
		t.Errorf("Total = %d, want 4321 (every kind of input plus output)", got)
	}
	if got := (llm.Usage{}).Total(); got != 0 {
		t.Errorf("zero Total = %d", got)
	}
	if got := a.Add(b).Total(); got != a.Total()+b.Total() {
		t.Errorf("Total of a sum = %d, want %d", got, a.Total()+b.Total())
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  *llm.Error
		want string
	}{
		{"status, one attempt", &llm.Error{Kind: llm.ErrKindRateLimit, Status: 429, Message: "slow down", Attempts: 1},
			"model call failed (HTTP 429 rate_limit): slow down"},
		{"status, several attempts", &llm.Error{Kind: llm.ErrKindOverloaded, Status: 529, Message: "Overloaded", Attempts: 6},
			"model call failed (HTTP 529 overloaded) after 6 attempts: Overloaded"},
		{"no status", &llm.Error{Kind: llm.ErrKindConnection, Message: "stream cut", Attempts: 2},
			"model call failed (connection) after 2 attempts: stream cut"},
		{"no message", &llm.Error{Kind: llm.ErrKindAuth, Status: 401},
			"model call failed (HTTP 401 authentication)"},
		{"zero attempts is not mentioned", &llm.Error{Kind: llm.ErrKindServer, Status: 500, Message: "oops"},
			"model call failed (HTTP 500 server): oops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q\nwant       %q", got, tt.want)
			}
		})
	}
}

func TestErrorUnwrap(t *testing.T) {
	e := &llm.Error{Kind: llm.ErrKindConnection, Err: io.ErrUnexpectedEOF}
	if !errors.Is(e, io.ErrUnexpectedEOF) {
		t.Errorf("errors.Is does not see the cause through *Error")
	}
	if errors.Is(&llm.Error{Kind: llm.ErrKindConnection}, io.ErrUnexpectedEOF) {
		t.Errorf("an *Error without a cause matches io.ErrUnexpectedEOF")
	}
}

func TestErrorRetryable(t *testing.T) {
	tests := map[string]bool{
		llm.ErrKindRateLimit:     true,
		llm.ErrKindOverloaded:    true,
		llm.ErrKindServer:        true,
		llm.ErrKindConnection:    true,
		llm.ErrKindPromptTooLong: false,
		llm.ErrKindAuth:          false,
		llm.ErrKindInvalid:       false,
		"":                       false,
		"something_new":          false,
	}
	for kind, want := range tests {
		if got := (&llm.Error{Kind: kind}).Retryable(); got != want {
			t.Errorf("Retryable() for kind %q = %v, want %v", kind, got, want)
		}
	}
}

func TestIsKind(t *testing.T) {
	e := &llm.Error{Kind: llm.ErrKindOverloaded, Status: 529}
	tests := []struct {
		name string
		err  error
		kind string
		want bool
	}{
		{"same kind", e, llm.ErrKindOverloaded, true},
		{"other kind", e, llm.ErrKindRateLimit, false},
		{"wrapped", fmt.Errorf("anthropic: %w", e), llm.ErrKindOverloaded, true},
		{"wrapped twice", fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", e)), llm.ErrKindOverloaded, true},
		{"joined", errors.Join(io.EOF, e), llm.ErrKindOverloaded, true},
		{"plain error", errors.New("overloaded"), llm.ErrKindOverloaded, false},
		{"nil", nil, llm.ErrKindOverloaded, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.IsKind(tt.err, tt.kind); got != tt.want {
				t.Errorf("IsKind(%v, %q) = %v, want %v", tt.err, tt.kind, got, tt.want)
			}
		})
	}
}

func TestKindForStatus(t *testing.T) {
	tests := []struct {
		status int
		want   string
	}{
		{429, llm.ErrKindRateLimit},
		{529, llm.ErrKindOverloaded},
		{401, llm.ErrKindAuth},
		{403, llm.ErrKindAuth},
		{500, llm.ErrKindServer},
		{502, llm.ErrKindServer},
		{503, llm.ErrKindServer},
		{504, llm.ErrKindServer},
		{408, llm.ErrKindServer},
		{409, llm.ErrKindServer},
		{400, llm.ErrKindInvalid},
		{404, llm.ErrKindInvalid},
		{413, llm.ErrKindInvalid},
		{422, llm.ErrKindInvalid},
	}
	for _, tt := range tests {
		if got := llm.KindForStatus(tt.status); got != tt.want {
			t.Errorf("KindForStatus(%d) = %q, want %q", tt.status, got, tt.want)
		}
	}
}
