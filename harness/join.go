package harness

import (
	"fmt"
	"io"

	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// The list of joiners: how a mechanism's Join meets the session. Each mechanism builds
// its own Part over mechanism.Env; the harness only says what the session offers.

// joinAll calls each joiner once, in order; the parts are later assembled in phase order.
func joinAll(env mechanism.Env, joiners ...mechanism.JoinFunc) ([]mechanism.Part, error) {
	parts := make([]mechanism.Part, 0, len(joiners))
	for _, j := range joiners {
		p, err := j(env)
		if err != nil {
			return nil, err // a mechanism's error says what it is
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// mechanismEnv is what the session offers its mechanisms as they join.
func mechanismEnv(d dirs, ws *workspace.Workspace, tr *transcript, notes tool.Notifier, ui UI, warn io.Writer) mechanism.Env {
	env := mechanism.Env{Workspace: ws, CWD: d.cwd, Project: d.project, SessionDir: tr.w.Dir(),
		Journal: tr.w, Resumed: tr.entries, Notes: notes, Warn: warner{warn}}
	if ui.Wake != nil {
		env.Waker = waker(ui.Wake)
	}
	if ui.Confirm != nil {
		env.Asker = asker(ui.Confirm)
	}
	return env
}

// warner writes warnings as ouro's own lines.
type warner struct{ w io.Writer }

func (w warner) Warnf(format string, args ...any) {
	fmt.Fprintf(w.w, "ouro: "+format+"\n", args...)
}

// waker is UI.Wake as a mechanism.Waker.
type waker func(Wake)

func (f waker) Wake(source, prompt string) { f(Wake{Source: source, Prompt: prompt}) }

// asker is UI.Confirm as a mechanism.Asker.
type asker func(string) bool

func (f asker) Confirm(q string) bool { return f(q) }
