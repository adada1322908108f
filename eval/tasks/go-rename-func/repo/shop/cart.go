// Package shop prices a shopping cart.
package shop

// Item is one line of a cart: a unit price in cents and a quantity.
type Item struct {
	Name     string
	Cents    int
	Quantity int
}

// CalcTotal is the price of all items in cents.
func CalcTotal(items []Item) int {
	total := 0
	for _, it := range items {
		total += it.Cents * it.Quantity
	}
	return total
}
