package team

import "context"

// member is what differs between the three kinds of teammate, each an implementation:
//
//   - inProcess: its loop runs in the lead's process, and the lead sees its state directly;
//   - process: the lead's side of a teammate it started as a process of its own (ouro team
//     worker, with --team-process): no loop runs here, its state comes from the process's
//     output and its messages from the store;
//   - worker: this process is the teammate, for a lead that runs elsewhere: its loop runs
//     here, a shutdown request reaches it through the store, and it stops on its own once
//     it did its tasks or nothing is left.
//
// A teammate's kind is set when it is made and never changes.
type member interface {
	// state is the teammate as `ouro team` shows it.
	state(tm *teammate) Member
	// planPending: in plan mode, with a plan sent and no answer yet (it takes no task).
	planPending(tm *teammate) bool
	// mailed notes that a message to the teammate was stored under id.
	mailed(id string)
	// process is the process the teammate runs as, seen from its lead; nil when its loop
	// runs in this process.
	process() *proc
	// checkShutdown looks for a shutdown request that did not come through requestStop.
	checkShutdown(ctx context.Context, tm *teammate)
	// idleDone says why an idle teammate stops of its own accord; "" goes on.
	idleDone(ctx context.Context, tm *teammate) string
	// failureStops: a run that ended without completing stops the teammate (its next run
	// would start from the same failure) instead of leaving it idle.
	failureStops() bool
}

// inProcess is a teammate whose loop runs in the lead's process.
type inProcess struct{}

func (inProcess) state(tm *teammate) Member                  { return tm.loopState() }
func (inProcess) planPending(tm *teammate) bool              { return tm.localPlanPending() }
func (inProcess) mailed(string)                              {}
func (inProcess) process() *proc                             { return nil }
func (inProcess) checkShutdown(context.Context, *teammate)   {}
func (inProcess) idleDone(context.Context, *teammate) string { return "" }
func (inProcess) failureStops() bool                         { return false }

// state is the teammate as `ouro team` shows it.
func (tm *teammate) state() Member { return tm.kind.state(tm) }

// waitingForPlan: in plan mode, with a plan sent and no answer yet, it takes no task.
func (tm *teammate) waitingForPlan() bool { return tm.kind.planPending(tm) }

// localPlanPending is planPending for a teammate whose loop runs here.
func (tm *teammate) localPlanPending() bool {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.plan && !tm.approved && tm.planReq != ""
}
