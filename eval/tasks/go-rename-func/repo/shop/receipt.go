package shop

import (
	"fmt"
	"strings"
)

// Receipt renders items and their total, one line each.
func Receipt(items []Item) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "%-10s %3d x %5d\n", it.Name, it.Quantity, it.Cents)
	}
	fmt.Fprintf(&b, "total      %d\n", CalcTotal(items))
	return b.String()
}
