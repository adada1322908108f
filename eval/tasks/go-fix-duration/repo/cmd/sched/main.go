// Command sched prints when a job would run next.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"example.com/sched/duration"
)

func main() {
	every := flag.String("every", "1h", "interval, e.g. 1h30m or 2d")
	flag.Parse()
	d, err := duration.Parse(*every)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sched:", err)
		os.Exit(2)
	}
	fmt.Println("next run at", time.Now().Add(d).Format(time.RFC3339))
}
