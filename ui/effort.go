package ui

import (
	"fmt"
	"strings"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm"
)

// cutEffort takes "--effort LEVEL" (or --effort=LEVEL) out of /model's arguments:
// effort is the level ("" when none was given), rest the arguments left.
func cutEffort(args string) (rest, effort string, err error) {
	f := strings.Fields(args)
	var keep []string
	for i := 0; i < len(f); i++ {
		switch v, ok := strings.CutPrefix(f[i], "--effort="); {
		case ok:
			effort = v
		case f[i] == "--effort":
			if i+1 >= len(f) {
				return "", "", fmt.Errorf("usage: /model [NAME] --effort LEVEL (%s, or auto for the model's default)", strings.Join(llm.Efforts, ", "))
			}
			i++
			effort = f[i]
		default:
			keep = append(keep, f[i])
		}
	}
	effort = strings.ToLower(effort)
	if effort != "" && effort != "auto" {
		if err := harness.CheckEffort(effort); err != nil {
			return "", "", fmt.Errorf("/model --effort: %w (or auto for the model's default)", err)
		}
	}
	return strings.Join(keep, " "), effort, nil
}

// effort sets the effort of the session's next requests (/effort LEVEL, /model --effort
// LEVEL; auto: the model's default, or what CLAUDE_CODE_EFFORT_LEVEL or effortLevel say),
// the conversation going on; /effort alone says what it is and whether thinking is on.
func (r *REPL) effort(level string) error {
	if level == "" {
		fmt.Fprintln(r.Out, r.thinkingStatus())
		return nil
	}
	if level == "auto" {
		level = ""
	} else if err := harness.CheckEffort(level); err != nil {
		return fmt.Errorf("/effort: %w (or auto for the model's default)", err)
	}
	id := r.sess.ID()
	if err := r.reopen(func(o *harness.Options) { o.Model.Effort = level; o.Resume = harness.Resume{ID: id} }); err != nil {
		return fmt.Errorf("/effort: %w", err)
	}
	fmt.Fprintln(r.Out, r.thinkingStatus()+" (the conversation goes on)")
	return nil
}

// thinkingStatus is the session's effort and thinking on one line (/effort, /status).
func (r *REPL) thinkingStatus() string {
	e := r.sess.Effort()
	if e == "" {
		e = "the model's default"
	}
	th := "off"
	if t := r.sess.Thinking(); t.On() {
		th = fmt.Sprintf("on (budget %d tokens where the model takes one)", t.Budget)
	}
	return fmt.Sprintf("effort: %s · thinking: %s", e, th)
}
