package engine

import (
	"context"
	"errors"
)

// Check parses src as a workflow script without running any of it and returns its meta.
func Check(src string) (Meta, error) {
	p, err := prepare("workflow.js", src)
	return p.meta, err
}

// Local is the engine in this process over Store.
type Local struct{ Store Store }

// Check implements workflow.Engine.
func (l Local) Check(_ context.Context, src string) (Meta, error) { return Check(src) }

// Run implements workflow.Engine.
func (l Local) Run(ctx context.Context, s Script, o Options) (Result, error) {
	if o.Store == nil {
		o.Store = l.Store
	}
	return Run(ctx, s, o)
}

// Journal implements workflow.Engine.
func (l Local) Journal(ctx context.Context, id string) (RunRecord, error) {
	if l.Store == nil {
		return RunRecord{}, errors.New("no journal")
	}
	return l.Store.Run(ctx, id)
}
