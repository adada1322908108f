package stats

import "testing"

func TestMax(t *testing.T) {
	if got, ok := Max([]int{3, 9, 4}); !ok || got != 9 {
		t.Errorf("Max(3, 9, 4) = %d, %v; want 9, true", got, ok)
	}
	if _, ok := Max(nil); ok {
		t.Error("Max(nil) reported a value")
	}
}

func TestSum(t *testing.T) {
	if got := Sum([]int{1, 2, 3}); got != 6 {
		t.Errorf("Sum(1, 2, 3) = %d; want 6", got)
	}
}
