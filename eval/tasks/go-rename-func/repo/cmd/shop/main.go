// Command shop prints the total of a fixed cart.
package main

import (
	"fmt"

	"example.com/shop/shop"
)

func main() {
	items := []shop.Item{{Name: "tea", Cents: 350, Quantity: 2}, {Name: "cake", Cents: 420, Quantity: 1}}
	fmt.Println(shop.CalcTotal(items))
}
