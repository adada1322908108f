package background

import (
	"fmt"
	"slices"
	"time"
)

// The queue of shell commands waiting for a slot: a command started while MaxRunning
// tasks run waits here, in order, and starts when a task ends (end and abandon hand the
// freed slot to the queue's head before anything else may take it, so a later start
// never jumps the queue). TaskStop removes a waiting command; Close drops them all,
// each ending killed and never started.

// live reports whether t has not ended: running or waiting.
func (t *task) live() bool { return t.info.Status == StatusRunning || t.info.Status == StatusQueued }

// dequeueLocked takes the queue's head while slots are free, marking each running (it
// counts against MaxRunning from now on). Called with mu held; startQueued launches
// what it returns, with mu released.
func (m *Manager) dequeueLocked() []*task {
	var next []*task
	for !m.closed && m.running < m.cfg.MaxRunning && len(m.queue) > 0 {
		t := m.queue[0]
		m.queue = m.queue[1:]
		t.info.Status, t.info.Started = StatusRunning, time.Now()
		m.running++
		next = append(next, t)
	}
	if len(m.queue) == 0 {
		m.queue = nil // let the backing array go
	}
	return next
}

// startQueued launches the commands dequeueLocked took. One that cannot start ends
// failed, with its notification (the model was given its id when it queued).
func (m *Manager) startQueued(next []*task) {
	for _, t := range next {
		err := t.out.open()
		if err == nil {
			err = m.launch(t)
		}
		if err != nil {
			// In its own goroutine: end hands the slot on, which may start (and fail) the
			// next one; a failing queue must not recurse.
			go m.end(t.x, t, StatusFailed, nil, "", "the queued command could not start: "+err.Error())
		}
	}
}

// stopTask ends a running task and waits until it has: a command still starting is
// stopped by launch as soon as its process exists.
func (m *Manager) stopTask(t *task) {
	m.mu.Lock()
	t.stopped = true
	stop := t.stop
	m.mu.Unlock()
	if stop != nil {
		stop()
	}
	<-t.done
}

// Position is where queued task id stands in the queue (1 is next) and how long the
// queue is; 0, n when id does not wait.
func (m *Manager) Position(id string) (pos, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.tasks[id]; ok {
		return m.positionLocked(t)
	}
	return 0, len(m.queue)
}

func (m *Manager) positionLocked(t *task) (pos, n int) {
	return slices.Index(m.queue, t) + 1, len(m.queue)
}

// Queued is how many commands wait for a slot.
func (m *Manager) Queued() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.queue)
}

// queuedNote tells the model where a waiting command stands: "queued: position 3 of 5;
// starts when one of the 8 running tasks ends".
func (m *Manager) queuedNote(t *task) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	pos, n := m.positionLocked(t)
	if pos == 0 {
		return "queued; it has left the queue since"
	}
	return fmt.Sprintf("queued: position %d of %d; starts when one of the %d running background tasks ends", pos, n, m.running)
}

// dropLocked takes a waiting command out of the queue as killed, never started, with
// why; closeQueued finishes it once mu is released. Called with mu held.
func (m *Manager) dropLocked(t *task, why string) Info {
	if i := slices.Index(m.queue, t); i >= 0 {
		m.queue = slices.Delete(m.queue, i, i+1)
	}
	t.stopped, t.spawn = true, nil
	t.info.Status, t.info.Ended, t.detail = StatusKilled, time.Now(), why
	return t.info
}

// closeQueued finishes a dropped command: its (empty) file is closed and whoever waits
// on it (TaskOutput with block) is released.
func (m *Manager) closeQueued(t *task) {
	t.out.Close()
	m.mu.Lock()
	close(t.done)
	m.prune()
	m.mu.Unlock()
}

// dropAllQueuedLocked drops the whole queue as the session closes; each command ends
// killed, never started. Called with mu held (closed is set, so nothing dequeues).
func (m *Manager) dropAllQueuedLocked() []Info {
	q := m.queue
	m.queue = nil
	out := make([]Info, 0, len(q))
	for _, t := range q {
		t.stopped, t.spawn = true, nil
		t.info.Status, t.info.Ended, t.detail = StatusKilled, time.Now(), "the session ended while it waited in the queue; it never started"
		t.out.Close() // no descriptor is open: only marks it closed
		close(t.done)
		out = append(out, t.info)
	}
	return out
}
