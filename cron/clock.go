package cron

import (
	"os"
	"strings"
	"sync"
	"time"
)

// Clock is where a scheduler reads the time and how often it looks. Tests move a
// ManualClock, or (through the binary) the file of a FileClock, and never wait a minute.
type Clock interface {
	Now() time.Time
	// Poll is how long to wait, in real time, between two looks at the jobs.
	Poll() time.Duration
}

// RealClock is the system's clock, looked at every second (which also notices a clock
// that jumps, or a machine that slept).
type RealClock struct{}

func (RealClock) Now() time.Time      { return time.Now() }
func (RealClock) Poll() time.Duration { return time.Second }

// ManualClock is a clock a test sets.
type ManualClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewManualClock returns a clock showing t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{t: t} }

func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *ManualClock) Poll() time.Duration { return 10 * time.Millisecond }

// Set moves the clock to t (backwards too); Advance moves it on by d.
func (c *ManualClock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// ClockEnv names a file whose content (an RFC 3339 time) is the schedulers' clock. It is
// for end-to-end tests of the binary only: they write the file to move time.
const ClockEnv = "OURO_TEST_CLOCK_FILE"

// FileClock reads the time from a file each time it is asked; while the file is missing
// or unreadable it shows the zero time, at which nothing is due.
type FileClock struct{ Path string }

func (c FileClock) Now() time.Time {
	data, err := os.ReadFile(c.Path)
	if err != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(data)))
	if err != nil {
		return time.Time{}
	}
	return t
}

func (c FileClock) Poll() time.Duration { return 20 * time.Millisecond }

// ClockFromEnv is the FileClock ClockEnv names, or the real clock.
func ClockFromEnv() Clock {
	if p := os.Getenv(ClockEnv); p != "" {
		return FileClock{Path: p}
	}
	return RealClock{}
}
