package harness

import (
	"errors"
	"os"
	"os/exec"
	"strconv"

	"github.com/ouroagent/ouro/internal/profile"
	"github.com/ouroagent/ouro/team"
)

// teamLauncher builds the `ouro team worker` command of each teammate of a lead run with
// --team-process: the same program, directory, home, store, task list, model, settings,
// permission rules and mode, and team budget as the lead, the teammate's name and agent
// type, and the lead's pid (the worker stops when its lead is gone). Every value is
// passed as --flag=value, so none can be read as another flag.
func teamLauncher(d dirs, list string, opts Options) func(team.WorkerSpec) (*exec.Cmd, error) {
	return func(spec team.WorkerSpec) (*exec.Cmd, error) {
		if opts.Model.Provider != nil {
			return nil, errors.New("--team-process needs a model the worker can reach by name; this session's model was given in code")
		}
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		args := []string{"team", "worker", "--team=" + list, "--name=" + spec.Name, "--agent=" + spec.AgentType,
			"--lead-pid=" + strconv.Itoa(os.Getpid())}
		flag := func(name, v string) {
			if v != "" {
				args = append(args, "--"+name+"="+v)
			}
		}
		if spec.Worktree {
			args = append(args, "--worktree")
		}
		flag("store", opts.Store)
		flag("model", opts.Model.Name)
		flag("settings", opts.Access.Settings)
		flag("permission-mode", opts.Access.Mode)
		flag("team-budget", team.FormatBudget(opts.TeamBudget))
		for _, r := range opts.Access.Allow {
			flag("allowedTools", r)
		}
		for _, r := range opts.Access.Deny {
			flag("disallowedTools", r)
		}
		cmd := exec.Command(exe, args...)
		cmd.Dir = d.cwd
		env := profile.ChildEnv("worker-" + spec.Name) // OURO_PROFILE: the worker's own folder
		if env == nil {
			env = os.Environ()
		}
		cmd.Env = append(env, "OURO_HOME="+d.home)
		return cmd, nil
	}
}
