package llm_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
)

func TestRetryPolicyDefaults(t *testing.T) {
	var zero llm.RetryPolicy
	if got := zero.Attempts(); got != 6 {
		t.Errorf("zero policy Attempts() = %d, want 6", got)
	}
	if got := zero.Fallback529(); got != 3 {
		t.Errorf("zero policy Fallback529() = %d, want 3", got)
	}
	neg := llm.RetryPolicy{MaxAttempts: -1, FallbackAfter529: -2}
	if neg.Attempts() != 6 || neg.Fallback529() != 3 {
		t.Errorf("negative policy: Attempts() = %d, Fallback529() = %d, want 6 and 3", neg.Attempts(), neg.Fallback529())
	}
	set := llm.RetryPolicy{MaxAttempts: 2, FallbackAfter529: 5}
	if set.Attempts() != 2 || set.Fallback529() != 5 {
		t.Errorf("explicit policy: Attempts() = %d, Fallback529() = %d, want 2 and 5", set.Attempts(), set.Fallback529())
	}
	if llm.DefaultRetry.Attempts() != 6 || llm.DefaultRetry.Fallback529() != 3 ||
		llm.DefaultRetry.BaseDelay != 500*time.Millisecond || llm.DefaultRetry.MaxDelay != 30*time.Second {
		t.Errorf("DefaultRetry = %+v", llm.DefaultRetry)
	}
}

// delaysIn draws many delays and checks every one lies in [lo, hi].
func delaysIn(t *testing.T, p llm.RetryPolicy, attempt int, lo, hi time.Duration) {
	t.Helper()
	for range 500 {
		if d := p.Delay(attempt, 0); d < lo || d > hi {
			t.Fatalf("%+v Delay(%d, 0) = %v, want within [%v, %v]", p, attempt, d, lo, hi)
		}
	}
}

func TestDelayBackoffBounds(t *testing.T) {
	p := llm.RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: 5 * time.Second}
	tests := []struct {
		attempt int
		nominal time.Duration // the exponential step before jitter
	}{
		{1, 100 * time.Millisecond},
		{2, 200 * time.Millisecond},
		{3, 400 * time.Millisecond},
		{4, 800 * time.Millisecond},
		{6, 3200 * time.Millisecond},
		{7, 5 * time.Second}, // 6.4s capped
		{30, 5 * time.Second},
		{64, 5 * time.Second}, // large shifts must neither overflow nor wrap
		{1000, 5 * time.Second},
	}
	for _, tt := range tests {
		delaysIn(t, p, tt.attempt, tt.nominal/2, tt.nominal)
	}
}

func TestDelayZeroPolicyUsesDefaults(t *testing.T) {
	var zero llm.RetryPolicy
	delaysIn(t, zero, 1, 250*time.Millisecond, 500*time.Millisecond)
	delaysIn(t, zero, 50, 15*time.Second, 30*time.Second)
}

func TestDelayBaseAboveMaxIsCapped(t *testing.T) {
	p := llm.RetryPolicy{BaseDelay: time.Minute, MaxDelay: 2 * time.Second}
	delaysIn(t, p, 1, time.Second, 2*time.Second)
}

// Delay is documented for attempt >= 1; anything lower must still give the first step
// rather than a panic (a negative shift count).
func TestDelayAttemptBelowOne(t *testing.T) {
	p := llm.RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: 5 * time.Second}
	delaysIn(t, p, 0, 50*time.Millisecond, 100*time.Millisecond)
	delaysIn(t, p, -3, 50*time.Millisecond, 100*time.Millisecond)
}

// Full jitter: the wait is spread over [d/2, d], not a fixed value.
func TestDelayJitterSpreadsOverRange(t *testing.T) {
	p := llm.RetryPolicy{BaseDelay: 800 * time.Millisecond, MaxDelay: time.Minute}
	const d = 800 * time.Millisecond
	lo, hi := d, time.Duration(0)
	distinct := map[time.Duration]bool{}
	for range 2000 {
		x := p.Delay(1, 0)
		lo, hi = min(lo, x), max(hi, x)
		distinct[x] = true
	}
	if lo < d/2 || hi > d {
		t.Fatalf("delays spread over [%v, %v], outside [%v, %v]", lo, hi, d/2, d)
	}
	// With 2000 uniform draws, landing only in the top or bottom fifth is all but impossible.
	if lo > d/2+d/5 || hi < d-d/5 {
		t.Errorf("delays spread only over [%v, %v]; full jitter should cover most of [%v, %v]", lo, hi, d/2, d)
	}
	if len(distinct) < 100 {
		t.Errorf("only %d distinct delays in 2000 draws", len(distinct))
	}
}

func TestDelayHonoursRetryAfter(t *testing.T) {
	p := llm.RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: 10 * time.Second}
	tests := []struct {
		name       string
		attempt    int
		retryAfter time.Duration
		want       time.Duration
	}{
		{"server value wins over backoff", 1, 3 * time.Second, 3 * time.Second},
		{"server value wins even when shorter", 5, 10 * time.Millisecond, 10 * time.Millisecond},
		{"capped at MaxDelay", 1, time.Hour, 10 * time.Second},
		{"exactly MaxDelay", 1, 10 * time.Second, 10 * time.Second},
	}
	for _, tt := range tests {
		if got := p.Delay(tt.attempt, tt.retryAfter); got != tt.want {
			t.Errorf("%s: Delay(%d, %v) = %v, want %v", tt.name, tt.attempt, tt.retryAfter, got, tt.want)
		}
	}
	// Zero or negative retry-after means "none given": ordinary backoff.
	for _, ra := range []time.Duration{0, -time.Second} {
		for range 200 {
			if d := p.Delay(3, ra); d < 200*time.Millisecond || d > 400*time.Millisecond {
				t.Fatalf("Delay(3, %v) = %v, want backoff within [200ms, 400ms]", ra, d)
			}
		}
	}
	if got := (llm.RetryPolicy{}).Delay(1, time.Hour); got != 30*time.Second {
		t.Errorf("zero policy caps retry-after at %v, want the default 30s", got)
	}
}

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestRetryAfterSecondsAndMilliseconds(t *testing.T) {
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"nil header", nil, 0},
		{"no header", header(), 0},
		{"whole seconds", header("retry-after", "7"), 7 * time.Second},
		{"fractional seconds", header("Retry-After", "1.5"), 1500 * time.Millisecond},
		{"zero seconds", header("retry-after", "0"), 0},
		{"negative seconds", header("retry-after", "-3"), 0},
		{"garbage", header("retry-after", "soon"), 0},
		{"milliseconds", header("retry-after-ms", "250"), 250 * time.Millisecond},
		{"fractional milliseconds", header("retry-after-ms", "1.5"), 1500 * time.Microsecond},
		{"milliseconds win over seconds", header("retry-after-ms", "250", "retry-after", "7"), 250 * time.Millisecond},
		{"bad milliseconds fall back to seconds", header("retry-after-ms", "x", "retry-after", "7"), 7 * time.Second},
		{"zero milliseconds fall back to seconds", header("retry-after-ms", "0", "retry-after", "2"), 2 * time.Second},
		{"bad milliseconds, no seconds", header("retry-after-ms", "-5"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.RetryAfter(tt.h); got != tt.want {
				t.Errorf("RetryAfter(%v) = %v, want %v", tt.h, got, tt.want)
			}
		})
	}
}

// A value too large for a time.Duration must saturate, not wrap negative: the server asked
// for a long wait, and Delay then caps it at MaxDelay instead of retrying at once.
func TestRetryAfterHugeValueSaturates(t *testing.T) {
	p := llm.RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: 10 * time.Second}
	for _, h := range []http.Header{
		header("retry-after", "1e12"),
		header("retry-after", "+Inf"),
		header("retry-after-ms", "1e20"),
	} {
		got := llm.RetryAfter(h)
		if got < 24*time.Hour {
			t.Errorf("RetryAfter(%v) = %v, want a very long wait", h, got)
		}
		if d := p.Delay(1, got); d != 10*time.Second {
			t.Errorf("Delay(1, RetryAfter(%v)) = %v, want MaxDelay 10s", h, d)
		}
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	future := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	got := llm.RetryAfter(header("retry-after", future))
	// HTTP dates have one-second resolution; allow generous slack for a slow machine.
	if got <= 50*time.Minute || got > time.Hour {
		t.Errorf("RetryAfter(%q) = %v, want about an hour", future, got)
	}

	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	if got := llm.RetryAfter(header("retry-after", past)); got != 0 {
		t.Errorf("RetryAfter(past date %q) = %v, want 0", past, got)
	}

	// The other two date formats HTTP allows.
	for _, layout := range []string{time.RFC850, time.ANSIC} {
		v := time.Now().Add(time.Hour).UTC().Format(layout)
		if got := llm.RetryAfter(header("retry-after", v)); got <= 50*time.Minute || got > time.Hour {
			t.Errorf("RetryAfter(%q) = %v, want about an hour", v, got)
		}
	}
}

// sleepReturns runs Sleep in a goroutine and fails if it does not come back: a Sleep that
// ignored ctx would otherwise hang the test binary for d.
func sleepReturns(t *testing.T, ctx context.Context, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- llm.Sleep(ctx, d) }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatalf("Sleep(ctx, %v) did not return on a done context", d)
		return nil
	}
}

func TestSleepReturnsOnCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleepReturns(t, ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled ctx = %v, want context.Canceled", err)
	}
	if err := llm.Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(cancelled, 0) = %v, want context.Canceled", err)
	}
	if err := llm.Sleep(ctx, -time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(cancelled, -1s) = %v, want context.Canceled", err)
	}
}

func TestSleepReturnsWhenCancelledWhileWaiting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	if err := sleepReturns(t, ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep = %v, want context.Canceled", err)
	}

	dctx, dcancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer dcancel()
	if err := sleepReturns(t, dctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Sleep past the deadline = %v, want context.DeadlineExceeded", err)
	}
}

func TestSleepCompletes(t *testing.T) {
	ctx := context.Background()
	for _, d := range []time.Duration{-time.Second, 0, time.Nanosecond, time.Millisecond} {
		if err := sleepReturns(t, ctx, d); err != nil {
			t.Errorf("Sleep(live ctx, %v) = %v, want nil", d, err)
		}
	}
}
