package duration

import (
	"testing"
	"time"
)

func TestParseSingleUnit(t *testing.T) {
	cases := map[string]time.Duration{
		"2d":  48 * time.Hour,
		"3h":  3 * time.Hour,
		"90s": 90 * time.Second,
	}
	for in, want := range cases {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestParseCompound(t *testing.T) {
	cases := map[string]time.Duration{
		"1h30m": 90 * time.Minute,
		"1d12h": 36 * time.Hour,
		"2m5s":  125 * time.Second,
	}
	for in, want := range cases {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "h", "10", "5x"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", in)
		}
	}
}
