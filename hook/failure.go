package hook

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
)

// FailureTap remembers the last error of the main loop's model calls, so that a run that
// ends failed because of the API can fire the StopFailure hooks with the error's class.
type FailureTap struct {
	llm.Provider
	mu   sync.Mutex
	last error
}

func (f *FailureTap) Complete(ctx context.Context, req *llm.Request, onDelta llm.StreamFunc) (*llm.Response, error) {
	resp, err := f.Provider.Complete(ctx, req, onDelta)
	f.mu.Lock()
	f.last = err
	f.mu.Unlock()
	return resp, err
}

// take returns the last error and forgets it.
func (f *FailureTap) take() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.last
	f.last = nil
	return err
}

// StopFailed fires the StopFailure hooks when out, the outcome of a run whose model
// calls went through tap, failed on a model call's error (not on
// a hook, a budget or an interruption): error_type is Claude Code's class of the error.
func (r *Runner) StopFailed(ctx context.Context, tap *FailureTap, out agent.Outcome) {
	err := tap.take()
	if out.Status != agent.StatusFailed || err == nil || ctx.Err() != nil || !r.Has(StopFailure) {
		return
	}
	kind, code := "unknown", ""
	var le *llm.Error
	if errors.As(err, &le) {
		if le.Status != 0 {
			code = strconv.Itoa(le.Status)
		}
		switch le.Kind {
		case llm.ErrKindRateLimit:
			kind = "rate_limit"
		case llm.ErrKindAuth:
			kind = "authentication_failed"
		case llm.ErrKindOverloaded, llm.ErrKindServer, llm.ErrKindConnection:
			kind = "server_error"
		case llm.ErrKindInvalid, llm.ErrKindPromptTooLong:
			kind = "invalid_request"
			switch le.Status {
			case 404:
				kind = "model_not_found"
			case 402:
				kind = "billing_error"
			}
		}
		if code == "" {
			code = le.Kind
		}
	}
	r.StopFailure(ctx, kind, code, err.Error(), out.Result)
}
