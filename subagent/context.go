package subagent

import "context"

// agentKey marks a context as a subagent's run.
type agentKey struct{}

// withAgent returns ctx marked as the run of the subagent started by call id.
func withAgent(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, agentKey{}, id)
}

// AgentID is the id of the subagent whose run ctx belongs to (the Task call that started
// it), "" for the session's own agent. What is scoped to one agent's turn (a skill's
// model) is kept apart by it: a child invoking a skill must not change its parent's model.
func AgentID(ctx context.Context) string {
	id, _ := ctx.Value(agentKey{}).(string)
	return id
}
