package hook

import (
	"context"
	"fmt"
	"strings"
)

// WorktreeCreate runs the WorktreeCreate hooks for a worktree named name. As in Claude
// Code they replace git: a hook makes the folder itself and prints its absolute path on
// stdout (nothing else), or answers JSON with hookSpecificOutput.worktreePath. handled is
// false when no hook is configured (git makes the worktree). Any failure (a non-zero
// exit, a timeout, continue:false, no path, two hooks naming different paths) fails the
// creation, with what went wrong.
func (r *Runner) WorktreeCreate(ctx context.Context, name string) (path string, handled bool, err error) {
	if !r.Has(WorktreeCreate) {
		return "", false, nil
	}
	in := r.input(ctx, WorktreeCreate)
	in.Name = name
	res := r.fire(ctx, in)
	if len(res) == 0 {
		return "", false, nil // only async hooks: they cannot answer with a path
	}
	for _, x := range res {
		switch {
		case x.halt:
			return "", true, fmt.Errorf("the WorktreeCreate hook %s stopped it: %s", x.run.Command, orDefault(x.out.StopReason, "continue: false"))
		case x.run.Outcome != OutcomeSuccess:
			return "", true, fmt.Errorf("the WorktreeCreate hook %s failed (%s): %s", x.run.Command, x.run.Outcome, orDefault(x.run.Message, fmt.Sprintf("exit status %d", x.run.ExitCode)))
		}
		p := strings.TrimSpace(x.text)
		if x.isJSON && x.out.HookSpecificOutput != nil {
			p = strings.TrimSpace(x.out.HookSpecificOutput.WorktreePath)
		}
		if strings.Contains(p, "\n") {
			return "", true, fmt.Errorf("the WorktreeCreate hook %s printed several lines; it must print only the absolute path of the folder it made (send anything else to stderr)", x.run.Command)
		}
		switch {
		case p == "":
		case path == "":
			path = p
		case p != path:
			return "", true, fmt.Errorf("two WorktreeCreate hooks named different folders (%s and %s); only one may make the worktree", path, p)
		}
	}
	if path == "" {
		return "", true, fmt.Errorf("no WorktreeCreate hook printed the path of the folder it made (a WorktreeCreate hook replaces git, so it must make the worktree and print its absolute path)")
	}
	return path, true, nil
}

// WorktreeRemove runs the WorktreeRemove hooks for a worktree folder being removed. They
// cannot stop it; their output is ignored, as in Claude Code.
func (r *Runner) WorktreeRemove(ctx context.Context, path string) {
	in := r.input(ctx, WorktreeRemove)
	in.WorktreePath = path
	r.fire(ctx, in)
}
