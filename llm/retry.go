package llm

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy bounds how a provider retries transient failures (429, 529, 5xx, dropped
// connections): exponential backoff with full jitter, capped, honouring retry-after.
type RetryPolicy struct {
	MaxAttempts int           // total attempts including the first; <=0 means 6
	BaseDelay   time.Duration // first backoff; <=0 means 500ms
	MaxDelay    time.Duration // cap for one wait, also for retry-after; <=0 means 30s
	// FallbackAfter529 switches to the fallback model after this many consecutive 529s
	// (<=0 means 3) when a fallback model is configured.
	FallbackAfter529 int
}

// DefaultRetry is the policy used when none is configured.
var DefaultRetry = RetryPolicy{MaxAttempts: 6, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second, FallbackAfter529: 3}

func (p RetryPolicy) norm() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 6
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = 500 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 30 * time.Second
	}
	if p.FallbackAfter529 <= 0 {
		p.FallbackAfter529 = 3
	}
	return p
}

// Attempts returns the normalised attempt bound.
func (p RetryPolicy) Attempts() int { return p.norm().MaxAttempts }

// Fallback529 returns the normalised number of consecutive 529s before falling back.
func (p RetryPolicy) Fallback529() int { return p.norm().FallbackAfter529 }

// Delay returns how long to wait before retry number attempt (1 = first retry). A
// server-given retryAfter wins when positive, capped at MaxDelay.
func (p RetryPolicy) Delay(attempt int, retryAfter time.Duration) time.Duration {
	p = p.norm()
	if retryAfter > 0 {
		return min(retryAfter, p.MaxDelay)
	}
	d := p.BaseDelay << min(max(attempt-1, 0), 20)
	if d <= 0 || d > p.MaxDelay {
		d = p.MaxDelay
	}
	// full jitter in [d/2, d]
	return d/2 + rand.N(d/2+1)
}

// RetryAfter parses the retry-after (seconds or HTTP date) or retry-after-ms header.
func RetryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return durationOf(ms, time.Millisecond)
		}
	}
	v := h.Get("retry-after")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return durationOf(s, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// durationOf converts n units to a Duration, saturating instead of overflowing: a float
// beyond the int64 range converts to an arbitrary (on amd64, negative) value, which would
// turn a very long retry-after into none at all.
func durationOf(n float64, unit time.Duration) time.Duration {
	ns := n * float64(unit)
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// Sleep waits d or until ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
