package anthropic

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

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/ouroagent/ouro/llm"
)

// classify turns a failed attempt into an *llm.Error (Attempts left for the caller) and
// the wait the server asked for, if any.
func classify(err error) (*llm.Error, time.Duration) {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return apiError(apiErr, err)
	}
	if isConnectionError(err) {
		return &llm.Error{Kind: llm.ErrKindConnection, Message: err.Error(), Err: err}, 0
	}
	return &llm.Error{Kind: llm.ErrKindInvalid, Message: err.Error(), Err: err}, 0
}

func apiError(apiErr *sdk.Error, err error) (*llm.Error, time.Duration) {
	msg := apiErr.Message
	if msg == "" {
		msg = strings.TrimSpace(apiErr.RawJSON())
	}
	if msg == "" {
		msg = http.StatusText(apiErr.StatusCode)
	}
	status := apiErr.StatusCode
	var kind string
	if status >= 200 && status < 300 {
		// An error event inside a stream that had started fine: only its type tells.
		kind = kindForType(string(apiErr.Type()))
		status = 0
	} else {
		kind = llm.KindForStatus(status)
	}
	if kind == llm.ErrKindInvalid && strings.Contains(strings.ToLower(msg), "prompt is too long") {
		kind = llm.ErrKindPromptTooLong
	}
	var retryAfter time.Duration
	if apiErr.Response != nil {
		retryAfter = llm.RetryAfter(apiErr.Response.Header)
	}
	return &llm.Error{Kind: kind, Status: status, Message: msg, Err: err}, retryAfter
}

// kindForType maps the error.type of an Anthropic error body to an error kind.
func kindForType(t string) string {
	switch t {
	case "rate_limit_error":
		return llm.ErrKindRateLimit
	case "overloaded_error":
		return llm.ErrKindOverloaded
	case "api_error", "timeout_error":
		return llm.ErrKindServer
	case "authentication_error", "permission_error":
		return llm.ErrKindAuth
	default:
		return llm.ErrKindInvalid
	}
}

// isConnectionError reports failures of the transport rather than of the request:
// connections refused, reset or dropped, and answers cut before their end.
func isConnectionError(err error) bool {
	if errors.Is(err, errStreamCut) || errors.Is(err, errBadStream) || errors.Is(err, llm.ErrStreamIdle) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var urlErr *url.Error
	return errors.As(err, &urlErr)
}

// isJSONError reports a failure to decode JSON: in a stream, a frame that is not JSON.
func isJSONError(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syn) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF)
}
