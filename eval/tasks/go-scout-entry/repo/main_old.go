//go:build ignore

// This was the first version of the calculator, before the evaluator moved
// into its own package. It is kept for reference only.
package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Println("usage: calc A OP B")
		os.Exit(2)
	}
	a, _ := strconv.Atoi(os.Args[1])
	b, _ := strconv.Atoi(os.Args[3])
	switch os.Args[2] {
	case "+":
		fmt.Println(a + b)
	case "-":
		fmt.Println(a - b)
	}
}
