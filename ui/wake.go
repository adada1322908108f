package ui

import (
	"fmt"
	"sync"

	"github.com/ouroagent/ouro/harness"
)

// wakeQueue holds the turns mechanisms asked for (harness.UI.Wake) until the REPL is idle.
// push never blocks: a schedule or a finished background task must not wait for a turn
// to end.
type wakeQueue struct {
	mu      sync.Mutex
	pending []harness.Wake
	ready   chan struct{} // has a value while pending is not empty
}

func (q *wakeQueue) init() { q.ready = make(chan struct{}, 1) }

func (q *wakeQueue) push(w harness.Wake) {
	if w.Prompt == "" {
		return
	}
	q.mu.Lock()
	q.pending = append(q.pending, w)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *wakeQueue) pop() (harness.Wake, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		return harness.Wake{}, false
	}
	w := q.pending[0]
	q.pending = q.pending[1:]
	if len(q.pending) > 0 {
		select {
		case q.ready <- struct{}{}:
		default:
		}
	}
	return w, true
}

// woken shows the user the turn that starts on its own, and returns its prompt.
func (r *REPL) woken(w harness.Wake) string {
	r.woke = true
	r.endLine()
	src := w.Source
	if src == "" {
		src = "wake"
	}
	fmt.Fprintf(r.Out, "\n[%s] %s\n", src, Clip(w.Prompt, 200))
	return w.Prompt
}
