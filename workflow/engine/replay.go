package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ouroagent/ouro/workflow"
)

// replay is what a resumed run may answer from the journal: the finished calls of the
// earlier run by hash, in call order. A call whose hash the earlier run never made is a
// change: it and every call after it run live. A call the earlier run started but did
// not finish is no change, it just runs.
type replay struct {
	mu         sync.Mutex
	done       map[string][]workflow.CallRecord
	unfinished map[string]int
	changed    bool
}

func loadReplay(ctx context.Context, s workflow.Store, id string) (*replay, error) {
	if !workflow.ValidRunID(id) {
		return nil, fmt.Errorf("resumeFromRunId %q does not match ^wf_[a-z0-9-]{6,}$", id)
	}
	if _, err := s.Run(ctx, id); err != nil {
		if errors.Is(err, workflow.ErrNotFound) {
			return nil, fmt.Errorf("there is no workflow run %s in the journal ('ouro workflow list' shows the runs)", id)
		}
		return nil, err
	}
	calls, err := s.Calls(ctx, id)
	if err != nil {
		return nil, err
	}
	rp := &replay{done: map[string][]workflow.CallRecord{}, unfinished: map[string]int{}}
	for _, c := range calls {
		if c.Status == workflow.CallDone {
			rp.done[c.Hash] = append(rp.done[c.Hash], c)
		} else {
			rp.unfinished[c.Hash]++
		}
	}
	return rp, nil
}

// take answers a call from the journal when it is part of the unchanged prefix.
func (rp *replay) take(hash string) (workflow.CallRecord, bool) {
	if rp == nil {
		return workflow.CallRecord{}, false
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.changed {
		return workflow.CallRecord{}, false
	}
	if q := rp.done[hash]; len(q) > 0 {
		rp.done[hash] = q[1:]
		return q[0], true
	}
	if rp.unfinished[hash] > 0 {
		rp.unfinished[hash]--
		return workflow.CallRecord{}, false
	}
	rp.changed = true
	return workflow.CallRecord{}, false
}
