package llm

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestStreamIdleBounds(t *testing.T) {
	t.Setenv("OURO_STREAM_IDLE_TIMEOUT", "")
	if f, i, err := StreamIdleBounds(); err != nil || f != DefaultStreamFirst || i != DefaultStreamIdle {
		t.Errorf("defaults: %v %v %v", f, i, err)
	}
	t.Setenv("OURO_STREAM_IDLE_TIMEOUT", "20m")
	if f, i, err := StreamIdleBounds(); err != nil || f != 20*time.Minute || i != 20*time.Minute {
		t.Errorf("20m: %v %v %v", f, i, err)
	}
	for _, bad := range []string{"soon", "-1s", "0"} {
		t.Setenv("OURO_STREAM_IDLE_TIMEOUT", bad)
		if _, _, err := StreamIdleBounds(); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestWatchIdle(t *testing.T) {
	ctx, w, stop := WatchIdle(context.Background(), time.Hour, 30*time.Millisecond)
	defer stop()
	w.Touch() // from now on the short bound applies
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a quiet stream was not cancelled")
	}
	if err := w.Cause(ctx, ctx.Err()); !errors.Is(err, ErrStreamIdle) {
		t.Errorf("cause %v", err)
	}
	ctx2, w2, stop2 := WatchIdle(context.Background(), time.Hour, time.Millisecond)
	stop2()
	if err := w2.Cause(ctx2, errors.New("x")); errors.Is(err, ErrStreamIdle) {
		t.Error("a stream stopped by its caller was taken for a quiet one")
	}
}
