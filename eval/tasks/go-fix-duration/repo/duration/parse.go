// Package duration parses intervals like "1h30m" or "2d", which time.ParseDuration
// does not accept because of the day unit.
package duration

import (
	"fmt"
	"time"
)

var units = map[byte]time.Duration{
	'd': 24 * time.Hour,
	'h': time.Hour,
	'm': time.Minute,
	's': time.Second,
}

// Parse reads a sequence of <number><unit> pairs, e.g. "2d", "1h30m", "90s".
func Parse(s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	var total time.Duration
	n, digits := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			n = n*10 + int(c-'0')
			digits++
			continue
		}
		unit, ok := units[c]
		if !ok {
			return 0, fmt.Errorf("duration %q: unknown unit %q", s, c)
		}
		if digits == 0 {
			return 0, fmt.Errorf("duration %q: unit %q without a number", s, c)
		}
		total += time.Duration(n) * unit
		digits = 0
	}
	if digits != 0 {
		return 0, fmt.Errorf("duration %q: number without a unit", s)
	}
	return total, nil
}
