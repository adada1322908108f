package hook

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// runHTTP runs an http hook: the event's JSON is POSTed to its URL, and a 2xx answer is
// read as a command hook's stdout (JSON decides; other text is plain output). Anything
// else (another status, no answer in time, a refused connection) is a non-blocking
// error, as a command hook's failing exit is: an http hook blocks only by what its JSON
// says.
func (r *Runner) runHTTP(ctx context.Context, e entry, event string, payload []byte) result {
	timeout := e.timeout
	if timeout <= 0 {
		timeout = r.cfg.DefaultTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	x := result{run: Run{ExitCode: -1}}
	start := time.Now()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, e.url, bytes.NewReader(payload))
	if err != nil {
		x.run.Outcome, x.run.Message = OutcomeError, fmt.Sprintf("could not build the request: %v", err)
		return x
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range e.headers {
		req.Header.Set(k, os.Expand(v, func(name string) string {
			if slices.Contains(e.allowedEnv, name) {
				return os.Getenv(name)
			}
			return "" // only the variables the hook lists reach a server
		}))
	}
	resp, err := http.DefaultClient.Do(req)
	x.run.Duration = time.Since(start)
	switch {
	case ctx.Err() != nil:
		x.run.Outcome, x.run.Message = OutcomeCancelled, "cancelled before the hook answered"
		return x
	case rctx.Err() != nil:
		x.run.Outcome, x.run.Message = OutcomeTimeout, fmt.Sprintf("no answer within %s", timeout)
		return x
	case err != nil:
		x.run.Outcome, x.run.Message = OutcomeError, fmt.Sprintf("could not reach %s: %v", e.url, err)
		return x
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxOutput+1))
	if err != nil {
		x.run.Outcome, x.run.Message = OutcomeError, fmt.Sprintf("reading the answer: %v", err)
		return x
	}
	x.run.ExitCode = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		x.run.Outcome = OutcomeError
		x.run.Message = r.fit(fmt.Sprintf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(body))), event)
		return x
	}
	if len(body) > maxOutput {
		x.run.Outcome = OutcomeError
		x.run.Message = fmt.Sprintf("its answer is longer than %d bytes, the most kept of a hook's output, so it was ignored", maxOutput)
		return x
	}
	x.run.Outcome = OutcomeSuccess
	if out, ok := parseOutput(string(body)); ok {
		x.out, x.isJSON = out, true
	} else {
		x.text = r.fit(strings.TrimSpace(string(body)), event)
	}
	return x
}
