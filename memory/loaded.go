package memory

import (
	"context"
	"path/filepath"

	"github.com/ouroagent/ouro/workspace"
)

// Loaded is an instruction file entering the context, as Claude Code's
// InstructionsLoaded hooks are told of it.
type Loaded struct {
	Path string
	// MemoryType is "User" (the user's own files, ~/.claude and ~/.ouro), "Local"
	// (CLAUDE.local.md) or "Project" (the rest). ouro reads no managed instruction file,
	// so "Managed" never occurs.
	MemoryType string
	// Reason is why it was loaded: "session_start", "include" (an @import; Parent is the
	// file that imported it), "nested_traversal" (a folder's file, when a file under it
	// was first read), "path_glob_match" (a rule whose paths: match that file; Globs are
	// its paths:) or "compact" (given again after a summary). Trigger is the file read.
	Reason          string
	Globs           []string
	Trigger, Parent string
}

// Load reasons.
const (
	ReasonSessionStart    = "session_start"
	ReasonInclude         = "include"
	ReasonNestedTraversal = "nested_traversal"
	ReasonPathGlobMatch   = "path_glob_match"
	ReasonCompact         = "compact"
)

// memoryType names whose file path is: the user's (under home's .claude or .ouro), a
// CLAUDE.local.md, or the project's.
func memoryType(path, home string) string {
	if filepath.Base(path) == "CLAUDE.local.md" {
		return "Local"
	}
	if home != "" {
		for _, d := range []string{".claude", ".ouro"} {
			root := filepath.Join(home, d)
			if workspace.Within(root, path) || workspace.Within(canonical(root), canonical(path)) {
				return "User"
			}
		}
	}
	return "Project"
}

// startLoaded are the files of in as loaded at reason (session_start or compact): an
// import says so, with the file that imported it. A rule with paths: is not among them:
// it is loaded when a file it is for is read.
func startLoaded(in Instructions, home, reason string) []Loaded {
	scoped := map[string]bool{}
	for _, r := range in.Rules {
		scoped[r.Path] = true
	}
	out := make([]Loaded, 0, len(in.Sources))
	for _, p := range in.Sources {
		if scoped[p] || scoped[canonical(p)] {
			continue
		}
		l := Loaded{Path: p, MemoryType: memoryType(p, home), Reason: reason}
		if parent, ok := in.Parents[filepath.Clean(p)]; ok && reason == ReasonSessionStart {
			l.Reason, l.Parent = ReasonInclude, parent
		}
		out = append(out, l)
	}
	return out
}

// tell gives each of ls to f (nil: nobody listens).
func tell(ctx context.Context, f func(context.Context, Loaded), ls []Loaded) {
	if f == nil {
		return
	}
	for _, l := range ls {
		f(ctx, l)
	}
}
