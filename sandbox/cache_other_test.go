//go:build !linux

package sandbox

import (
	"os"
	"testing"
)

func testMainWithCache(m *testing.M) int { return m.Run() }

// runHolder: there is no supervision in ouro on this system.
func runHolder(string) { os.Exit(2) }
