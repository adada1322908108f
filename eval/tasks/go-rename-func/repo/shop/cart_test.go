package shop

import (
	"strings"
	"testing"
)

func TestTotal(t *testing.T) {
	items := []Item{{Name: "tea", Cents: 350, Quantity: 2}, {Name: "cake", Cents: 420, Quantity: 1}}
	if got := Total(items); got != 1120 {
		t.Errorf("Total = %d; want 1120", got)
	}
	if r := Receipt(items); !strings.Contains(r, "total      1120") {
		t.Errorf("Receipt has no total line:\n%s", r)
	}
}
