package engine

import (
	"context"
	"errors"

	"github.com/ouroagent/ouro/workflow"
)

// Check parses src as a workflow script without running any of it and returns its meta.
func Check(src string) (workflow.Meta, error) {
	p, err := prepare("workflow.js", src)
	return p.meta, err
}

// Local is the engine in this process over Store.
type Local struct{ Store workflow.Store }

// Check implements workflow.Engine.
func (l Local) Check(_ context.Context, src string) (workflow.Meta, error) { return Check(src) }

// Run implements workflow.Engine.
func (l Local) Run(ctx context.Context, s workflow.Script, o workflow.Options) (workflow.Result, error) {
	if o.Store == nil {
		o.Store = l.Store
	}
	return Run(ctx, s, o)
}

// Journal implements workflow.Engine.
func (l Local) Journal(ctx context.Context, id string) (workflow.RunRecord, error) {
	if l.Store == nil {
		return workflow.RunRecord{}, errors.New("no journal")
	}
	return l.Store.Run(ctx, id)
}
