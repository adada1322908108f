// Package runner runs the scout (and the guarded fixer) on the harness: it opens a
// session as scout.Prepare planned it, with the scout's check joined as an extension,
// runs the prompt and has the check judge the result. `ouro scout`, `ouro fix` and
// `ouro eval` start here; the checks themselves live in package scout, which does not
// know the harness.
package runner

import (
	"context"
	"encoding/json"
	"os"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/scout"
	"github.com/ouroagent/ouro/tool"
)

// Run runs the scout (or, with Config.Fix, the fixer) to a result.
func Run(ctx context.Context, cfg scout.Config) (scout.Result, error) {
	if cfg.Warn == nil {
		cfg.Warn = os.Stderr
	}
	plan, err := scout.Prepare(cfg)
	if err != nil {
		return scout.Result{}, err
	}
	sess, err := harness.Open(harness.Options{
		Model:  harness.ModelOptions{Name: cfg.Model, Provider: cfg.Provider, MaxOutput: plan.MaxOutput},
		Dirs:   harness.Dirs{CWD: plan.Dir, Home: cfg.Home, UserConfig: cfg.UserConfigHome},
		Prompt: harness.Prompt{System: plan.System},
		Limits: plan.Limits,
		Access: harness.Access{Settings: cfg.Settings, Tools: plan.Tools, Mode: plan.Mode, Allow: plan.Allow, Deny: plan.Deny,
			SandboxLauncher: cfg.SandboxLauncher},
		UI:         harness.UI{Observers: cfg.Observers, Warn: cfg.Warn},
		Extensions: []mechanism.Joiner{plan.Check},
		Version:    cfg.Version,
	})
	if err != nil {
		return scout.Result{}, err
	}
	defer sess.Close()

	out := sess.Run(ctx, plan.Prompt)
	res := plan.Check.Finish(ctx, out, sess.Conv.Messages, func(ctx context.Context, command string) tool.Result {
		input, _ := json.Marshal(map[string]any{"command": command, "timeout": 600000})
		r, err := sess.Bash.Run(ctx, tool.NewExec(tool.Call{Name: "Bash", Input: input}, nil, nil))
		if err != nil {
			return tool.Errorf("%v", err)
		}
		return r
	})
	res.SessionID, res.Transcript = sess.ID(), sess.TranscriptPath()
	if specs, err := json.Marshal(sess.Tools.Specs()); err == nil {
		res.ToolDefinitionBytes = len(specs)
	}
	return res, nil
}
