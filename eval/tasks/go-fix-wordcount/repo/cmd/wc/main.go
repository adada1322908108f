// Command wc prints the most frequent words of standard input.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"example.com/wc/wordcount"
)

func main() {
	n := flag.Int("n", 10, "how many words to print")
	flag.Parse()
	text, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wc:", err)
		os.Exit(1)
	}
	for _, e := range wordcount.Top(wordcount.Count(string(text)), *n) {
		fmt.Printf("%6d %s\n", e.Count, e.Word)
	}
}
