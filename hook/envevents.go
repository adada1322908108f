package hook

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/tool"
)

// The events of Claude Code's that are about the session's surroundings rather than its
// turns: a denial (PermissionDenied), the working directory moving (CwdChanged), a
// watched file changing on disk (FileChanged, see Watcher), an instruction file entering
// the context (InstructionsLoaded) and a settings file changing (ConfigChange). Their
// fields and decisions are Claude Code's: PermissionDenied's hookSpecificOutput.retry
// tells the model it may try again; CwdChanged and FileChanged may name more files to
// watch (hookSpecificOutput.watchPaths, absolute) and get a CLAUDE_ENV_FILE;
// InstructionsLoaded only observes; ConfigChange may block (exit code 2 or decision
// "block"), except for the managed policy_settings, which always win.

// PermissionDenied runs the PermissionDenied hooks for a call the permission gate
// refused on its own (a rule, the mode, nobody to ask; see permission.Denied), with the
// refusal's reason. retry is true when a hook answered hookSpecificOutput.retry: the
// model is then told it may retry the call. Nothing a hook answers turns the denial into
// an allow.
func (r *Runner) PermissionDenied(ctx context.Context, c tool.Call, reason string) (retry bool) {
	if !r.Has(PermissionDenied) {
		return false
	}
	in := r.input(ctx, PermissionDenied)
	in.ToolName, in.ToolInput, in.ToolUseID, in.Reason = c.Name, c.Input, c.ID, reason
	for _, x := range r.fire(ctx, in) {
		if x.isJSON && x.out.HookSpecificOutput != nil && x.out.HookSpecificOutput.Retry {
			retry = true
		}
	}
	return retry
}

// CwdChanged says the session's working directory moved from oldDir to newDir (a cd in
// Bash, a move into a worktree or back): the payloads' cwd says newDir from now on, what
// CwdChanged and FileChanged hooks exported to CLAUDE_ENV_FILE for the old directory is
// dropped, and the CwdChanged hooks run. watch is the absolute paths they asked to watch
// (hookSpecificOutput.watchPaths). Nothing happens when the directory did not change.
func (r *Runner) CwdChanged(ctx context.Context, oldDir, newDir string) (watch []string) {
	if oldDir == newDir || newDir == "" {
		return nil
	}
	r.SetCWD(newDir)
	r.clearCwdEnv()
	if !r.Has(CwdChanged) {
		return nil
	}
	in := r.input(ctx, CwdChanged)
	in.OldCWD, in.NewCWD = oldDir, newDir
	return r.watchPaths(CwdChanged, r.fire(ctx, in))
}

// FileChanged runs the FileChanged hooks whose matcher names path's base name (or
// matches every file) for a change of kind event: "change", "add" or "unlink". watch is
// what they asked to watch besides.
func (r *Runner) FileChanged(ctx context.Context, path, event string) (watch []string) {
	if !r.Has(FileChanged) {
		return nil
	}
	in := r.input(ctx, FileChanged)
	in.FilePath, in.FileEvent = path, event
	return r.watchPaths(FileChanged, r.fire(ctx, in))
}

// watchPaths collects the absolute watchPaths of results; a relative one is refused
// with a word to the user (what it is relative to would be a guess).
func (r *Runner) watchPaths(event string, res []result) []string {
	var out []string
	for _, x := range res {
		if !x.isJSON || x.out.HookSpecificOutput == nil {
			continue
		}
		for _, p := range x.out.HookSpecificOutput.WatchPaths {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			if !filepath.IsAbs(p) {
				r.show(fmt.Sprintf("%s hook %s: watchPaths entry %q is ignored: it must be an absolute path", event, x.run.Command, p))
				continue
			}
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// WatchNames are the file names the FileChanged hooks' matchers list (".envrc|.env"):
// the files watched in the working directory.
func (r *Runner) WatchNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range r.entries(FileChanged) {
		for _, n := range e.match.names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// Instruction is an instruction file that entered the context, for InstructionsLoaded.
type Instruction struct {
	Path string
	// MemoryType is User, Project, Local or Managed.
	MemoryType string
	// LoadReason is session_start, nested_traversal, path_glob_match, include or compact.
	LoadReason string
	// Globs are a path-scoped rule's paths: (path_glob_match); Trigger the file whose
	// reading loaded it (nested_traversal, path_glob_match); Parent the file that
	// imported it (include).
	Globs           []string
	Trigger, Parent string
}

// InstructionsLoaded runs the InstructionsLoaded hooks (matcher: the load reason) for an
// instruction file loaded into the context. They only observe: what they answer changes
// nothing, as in Claude Code.
func (r *Runner) InstructionsLoaded(ctx context.Context, f Instruction) {
	if !r.Has(InstructionsLoaded) {
		return
	}
	in := r.input(ctx, InstructionsLoaded)
	in.FilePath, in.MemoryType, in.LoadReason = f.Path, f.MemoryType, f.LoadReason
	in.Globs, in.TriggerFilePath, in.ParentFilePath = f.Globs, f.Trigger, f.Parent
	r.fire(ctx, in)
}

// Config sources, as ConfigChange's source (and its matcher) names them.
const (
	SourceUserSettings    = "user_settings"
	SourceProjectSettings = "project_settings"
	SourceLocalSettings   = "local_settings"
	SourcePolicySettings  = "policy_settings"
	SourceSkills          = "skills"
)

// ConfigChange runs the ConfigChange hooks (matcher: the source) for a settings file
// that changed during the session. Exit code 2, decision "block" or continue:false block
// the change, with the reason; a block of policy_settings (managed settings, which
// always apply) is ignored, with a word to the user.
func (r *Runner) ConfigChange(ctx context.Context, source, path string) (blocked bool, reason string) {
	if !r.Has(ConfigChange) {
		return false, ""
	}
	in := r.input(ctx, ConfigChange)
	in.Source, in.FilePath = source, path
	var reasons []string
	for _, x := range r.fire(ctx, in) {
		switch {
		case x.halt:
			blocked = true
			reasons = append(reasons, orDefault(x.out.StopReason, fmt.Sprintf("the ConfigChange hook %s stopped it", x.run.Command)))
		case x.block:
			blocked = true
			reasons = append(reasons, orDefault(x.run.Message, fmt.Sprintf("blocked by the ConfigChange hook %s", x.run.Command)))
		case x.isJSON && x.out.Decision == "block":
			blocked = true
			reasons = append(reasons, orDefault(strings.TrimSpace(x.out.Reason), fmt.Sprintf("blocked by the ConfigChange hook %s", x.run.Command)))
		}
	}
	// A hook's continue:false here is about the change, not the run: fire recorded it
	// for the next model call, which it must not stop.
	r.mu.Lock()
	if r.halt != nil && r.halt.Event == ConfigChange {
		r.halt = nil
	}
	r.mu.Unlock()
	if blocked && source == SourcePolicySettings {
		r.show("A ConfigChange hook tried to block a change of managed settings (" + path + "); managed settings cannot be blocked")
		return false, ""
	}
	return blocked, strings.Join(reasons, "\n")
}
