// rssprobe runs a command and prints its peak RSS in KB. It exists because a child's
// ru_maxrss includes the memory of the process that started it (the kernel keeps the
// high-water mark across exec), so a large test binary cannot measure a small program
// directly; this small one can.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	c := exec.Command(os.Args[1], os.Args[2:]...)
	if err := c.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
}
