//go:build !linux

package lean

func release() {}
