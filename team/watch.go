package team

import (
	"context"
	"os"
	"time"
)

// WatchLead returns a context that ends when the lead, process leadPID that started this
// worker, is gone (it died without ending the worker, or this worker was handed to
// another parent): a worker never outlives its lead.
func WatchLead(ctx context.Context, leadPID int, every time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if leadPID <= 0 {
		return ctx, cancel
	}
	childOfLead := os.Getppid() == leadPID
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if (childOfLead && os.Getppid() != leadPID) || !processAlive(leadPID) {
				cancel()
				return
			}
		}
	}()
	return ctx, cancel
}
