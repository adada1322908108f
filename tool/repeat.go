package tool

import (
	"encoding/json"
	"fmt"

	"github.com/ouroagent/ouro/internal/textcut"
)

// DefaultMaxRepeats is how many blocked repetitions in a row end the run.
const DefaultMaxRepeats = 3

// failure is a call that failed, and the state generation at the time.
type failure struct {
	gen  uint64
	text string
}

// callKey identifies a call by tool and normalised input (keys sorted, spacing dropped).
func callKey(c Call) string {
	var v any
	if err := json.Unmarshal(c.Input, &v); err != nil {
		return c.Name + "\x00" + string(c.Input)
	}
	b, _ := json.Marshal(v)
	return c.Name + "\x00" + string(b)
}

// checkRepeat refuses a call identical to one that failed while nothing has changed since
// (no write, no command run): running it again cannot produce new evidence. The third
// refusal in a row asks the loop to end the run.
func (r *Registry) checkRepeat(key, name string) (Result, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.failures[key]
	if !ok || f.gen != r.gen {
		return Result{}, false
	}
	r.streak++
	res := Errorf("This exact %s call already failed, and nothing has changed since (no file written, no command run), so it was not run again: repeating it cannot produce new evidence. The earlier error was:\n%s\nChange the input or try a different approach.", name, textcut.Bytes(f.text, 600, "…"))
	max := r.opts.MaxRepeats
	if max <= 0 {
		max = DefaultMaxRepeats
	}
	if r.streak >= max {
		res.Abort = fmt.Sprintf("the model repeated a call that had already failed, with nothing changed in between, %d times in a row (%s)", r.streak, name)
	}
	return res, true
}

// record notes how a call that ran ended: a tool that may change state advances the
// generation; a failure is remembered, a success forgets earlier failures of the call.
func (r *Registry) record(key string, mayChange bool, res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.streak = 0
	if mayChange {
		r.gen++
	}
	if res.IsError {
		r.failures[key] = failure{gen: r.gen, text: res.Text()}
	} else {
		delete(r.failures, key)
	}
}

// touch advances the generation for a call that may have changed state without leaving
// a verdict (it was interrupted).
func (r *Registry) touch(mayChange bool) {
	if !mayChange {
		return
	}
	r.mu.Lock()
	r.gen++
	r.mu.Unlock()
}
