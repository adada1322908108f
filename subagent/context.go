package subagent

import "context"

// agentKey marks a context as a subagent's run.
type agentKey struct{}

// dirKey marks a context as the run of an agent working in a worktree of its own.
type dirKey struct{}

// withAgent returns ctx marked as the run of the subagent started by call id, working in
// dir ("": where its parent works — a child of an isolated agent uses its tools, so its
// worktree).
func withAgent(ctx context.Context, id, dir string) context.Context {
	ctx = context.WithValue(ctx, agentKey{}, id)
	if dir != "" {
		ctx = context.WithValue(ctx, dirKey{}, dir)
	}
	return ctx
}

// WorkDir is the worktree the agent ctx belongs to works in, "" when it works in the
// session's directory (the session's own agent, or a subagent without isolation).
func WorkDir(ctx context.Context) string {
	d, _ := ctx.Value(dirKey{}).(string)
	return d
}

// AgentID is the id of the subagent whose run ctx belongs to (the Task call that started
// it), "" for the session's own agent. What is scoped to one agent's turn (a skill's
// model) is kept apart by it: a child invoking a skill must not change its parent's model.
func AgentID(ctx context.Context) string {
	id, _ := ctx.Value(agentKey{}).(string)
	return id
}
