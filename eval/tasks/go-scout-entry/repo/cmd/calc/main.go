// Command calc evaluates an integer expression given on the command line.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"example.com/calc/calc"
)

func main() {
	verbose := flag.Bool("v", false, "print the expression before the result")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: calc [-v] EXPRESSION")
		os.Exit(2)
	}
	expr := strings.Join(flag.Args(), " ")
	n, err := calc.Eval(expr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "calc:", err)
		os.Exit(1)
	}
	if *verbose {
		fmt.Printf("%s = ", expr)
	}
	fmt.Println(n)
}
