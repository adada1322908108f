package openai

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/ouroagent/ouro/llm"
)

// errStreamIncomplete is a stream that ended cleanly but before a finish_reason: the
// connection was closed early, so the answer is retried like a dropped connection.
var errStreamIncomplete = errors.New("the stream ended before the answer was finished")

// errMalformed is a response that does not follow the protocol.
var errMalformed = errors.New("malformed response")

// classify turns whatever one attempt failed with into an *llm.Error whose kind decides
// whether to retry.
func classify(err error) *llm.Error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return classifyAPIError(apiErr)
	}
	var streamErr *ssestream.StreamError
	switch {
	case errors.As(err, &streamErr):
		// An error event in the middle of a stream: the server failed while answering.
		return &llm.Error{Kind: llm.ErrKindServer, Message: streamErr.Message, Err: err}
	case isConnectionError(err):
		return &llm.Error{Kind: llm.ErrKindConnection, Message: "connection lost: " + err.Error(), Err: err}
	case errors.Is(err, errMalformed) || isJSONError(err):
		return &llm.Error{Kind: llm.ErrKindServer, Message: err.Error(), Err: err}
	}
	return &llm.Error{Kind: llm.ErrKindInvalid, Message: err.Error(), Err: err}
}

func classifyAPIError(e *sdk.Error) *llm.Error {
	msg := e.Message
	if msg == "" {
		msg = strings.TrimSpace(e.RawJSON())
	}
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	kind := llm.KindForStatus(e.StatusCode)
	switch {
	case isContextLengthError(e):
		kind = llm.ErrKindPromptTooLong
	case e.StatusCode == http.StatusTooManyRequests && e.Code == "insufficient_quota":
		// Out of credit: waiting does not help, so it is not a rate limit to retry.
		kind = llm.ErrKindInvalid
	}
	return &llm.Error{Kind: kind, Status: e.StatusCode, Message: msg, Err: e}
}

// isContextLengthError recognises "the prompt does not fit" as OpenAI reports it
// (code context_length_exceeded) and as compatible servers word it.
func isContextLengthError(e *sdk.Error) bool {
	if e.StatusCode != http.StatusBadRequest && e.StatusCode != http.StatusRequestEntityTooLarge {
		return false
	}
	if e.Code == "context_length_exceeded" || e.Type == "exceed_context_size_error" {
		return true
	}
	m := strings.ToLower(e.Message)
	return strings.Contains(m, "maximum context length") || strings.Contains(m, "context length exceeded") ||
		strings.Contains(m, "exceeds the available context size") || strings.Contains(m, "prompt is too long")
}

func isConnectionError(err error) bool {
	if errors.Is(err, errStreamIncomplete) || errors.Is(err, llm.ErrStreamIdle) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var netErr net.Error
	var urlErr *url.Error
	return errors.As(err, &netErr) || errors.As(err, &urlErr)
}

func isJSONError(err error) bool {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syntax) || errors.As(err, &typ)
}

// retryAfter is the wait the server asked for, if the error carries its response.
func retryAfter(err error) time.Duration {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) && apiErr.Response != nil {
		return llm.RetryAfter(apiErr.Response.Header)
	}
	return 0
}
