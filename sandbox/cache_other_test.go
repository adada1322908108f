//go:build !linux

package sandbox

import "testing"

func testMainWithCache(m *testing.M) int { return m.Run() }
