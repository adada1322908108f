// Package stats has small helpers over integer slices.
package stats

// Max returns the largest value of xs, and false when xs is empty.
func Max(xs []int) (int, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	best := xs[0]
	for _, x := range xs[1:] {
		if x < best {
			best = x
		}
	}
	return best, true
}

// Sum adds up xs.
func Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}
