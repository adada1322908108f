package background

import (
	"fmt"
	"os"
	"sync"
)

// cappedFile writes a task's output up to max bytes, then one marker line; what comes
// after is discarded but accepted, so the process never blocks on a full pipe.
type cappedFile struct {
	mu     sync.Mutex
	f      *os.File
	path   string // a queued command's file, opened (open) when it starts
	max    int64
	n      int64
	capped bool
	closed bool
}

func (c *cappedFile) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.capped || c.f == nil {
		return len(p), nil
	}
	w := p
	if room := c.max - c.n; int64(len(w)) > room {
		w = w[:room]
	}
	n, err := c.f.Write(w)
	c.n += int64(n)
	if err != nil {
		return len(p), nil // a full disk must not stop the task; the file says what it has
	}
	if len(w) < len(p) {
		c.capped = true
		fmt.Fprintf(c.f, "\n[ouro: output capped at %d bytes; the rest of this task's output is discarded]\n", c.max)
	}
	return len(p), nil
}

func (c *cappedFile) size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *cappedFile) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		if c.f != nil {
			_ = c.f.Close()
		}
	}
}

// open opens a queued command's output file for writing as it starts.
func (c *cappedFile) open() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil || c.path == "" {
		return nil
	}
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	c.f = f
	return nil
}
