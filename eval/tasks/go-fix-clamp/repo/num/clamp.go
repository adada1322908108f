// Package num has small numeric helpers.
package num

// Clamp limits x to the range [lo, hi].
func Clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return lo
	}
	return x
}
