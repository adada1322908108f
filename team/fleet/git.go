package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/team/repo"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// Git is how the session has its say over the git commands a worker runs itself (the
// clone, fetch and push of --repo): its permission rules (Allowed) and its OS sandbox,
// in which they run as the agent's commands do, writing only the worker's clone (and a
// remote on this machine they push to), reaching the network as the sandbox's network
// settings allow.
type Git struct {
	// Policy is the session's permission policy.
	Policy *permission.Policy
	// Sandboxed says the session's commands run in an OS sandbox made from Sandbox
	// (its settings), TmpDir (the session's temp dir) and Proxy (nil: none); Project is
	// the folder the sandbox's relative paths mean.
	Sandboxed bool
	Sandbox   settings.Sandbox
	TmpDir    string
	Proxy     *sandbox.Proxy
	Project   string
}

// Options are the git commands' repo.Options.
func (g Git) Options() repo.Options {
	return repo.Options{Check: g.Allowed, Command: g.command}
}

// Allowed refuses a git command when the session's permission rules deny it as a Bash
// command: --repo asks for those commands, so what would only ask goes ahead, but a
// deny rule holds.
func (g Git) Allowed(command string) error {
	in, _ := json.Marshal(map[string]string{"command": command})
	v := g.Policy.Check(context.Background(), tool.Call{Name: "Bash", Input: in})
	if v.Behavior == permission.Deny && !v.FromMode {
		return fmt.Errorf("%s is refused by the permission rules (%s): %s", command, v.Source, v.Reason)
	}
	return nil
}

func (g Git) command(ctx context.Context, writable []string, name string, args ...string) (*exec.Cmd, error) {
	if !g.Sandboxed {
		return exec.CommandContext(ctx, name, args...), nil
	}
	home, _ := os.UserHomeDir()
	sb := anchored(g.Sandbox, g.Project)
	// git writes the clone's objects itself: no migration follows these commands.
	pol := sandbox.FromSettings(sb, writable[:1], home, g.TmpDir).WithoutCheckoutObjects()
	if g.Proxy != nil {
		pol = pol.WithProxy(g.Proxy)
	}
	// A remote on this machine is written by git's receive-pack. It is no workspace (no
	// placeholder is made in it), so it is added after, unless the sandbox's
	// filesystem.denyWrite covers it (as it would a workspace root).
	for _, p := range writable[1:] {
		if probe := sandbox.FromSettings(sb, []string{p}, home, ""); slices.ContainsFunc(probe.WriteRoots, func(w string) bool { return workspace.Within(w, realPath(p)) }) {
			pol.WriteRoots = append(pol.WriteRoots, p)
		}
	}
	return sandbox.Command(ctx, pol, name, args...)
}

// anchored rewrites the sandbox's filesystem paths that are relative to the project
// ("x", "/x") as absolute ones ("//dir/x"), so that they mean for git, whose sandbox root
// is the clone's folder, what they mean for the agent's commands in the session's folder.
func anchored(sb settings.Sandbox, project string) settings.Sandbox {
	fix := func(ps []string) []string {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			if p != "" && !strings.HasPrefix(p, "//") && p != "~" && !strings.HasPrefix(p, "~/") {
				p = "/" + filepath.Join(project, p)
			}
			out = append(out, p)
		}
		return out
	}
	sb.Filesystem.AllowWrite = fix(sb.Filesystem.AllowWrite)
	sb.Filesystem.DenyWrite = fix(sb.Filesystem.DenyWrite)
	return sb
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
