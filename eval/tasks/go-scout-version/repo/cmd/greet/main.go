// Command greet says hello.
package main

import (
	"flag"
	"fmt"

	"example.com/greet/internal/version"
)

func main() {
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println("greet", version.Number)
		return
	}
	name := "world"
	if flag.NArg() > 0 {
		name = flag.Arg(0)
	}
	fmt.Printf("Hello, %s!\n", name)
}
