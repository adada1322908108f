// rssprobe runs a command and prints its peak RSS in KB. It exists because a child's
// ru_maxrss includes the memory of the process that started it (the kernel keeps the
// high-water mark across exec), so a large test binary cannot measure a small program
// directly; this small one can.
//
// With -smaps first it prints one JSON object instead: the peak RSS, the CPU time the
// command used, and the largest values of /proc/PID/smaps_rollup (Linux) seen while it
// ran, sampled every millisecond: Rss, Pss, Private_Clean, Private_Dirty, their sum
// (private_kb) and Anonymous, in KB. Go's heap seldom shrinks within a short run, so the last samples are the peak;
// a sample never exceeds the true peak.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	smaps := len(args) > 0 && args[0] == "-smaps"
	if smaps {
		args = args[1:]
	}
	c := exec.Command(args[0], args[1:]...)
	c.Stdout, c.Stderr = nil, os.Stderr
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	peak := map[string]int64{}
	var err error
	if smaps {
		path := fmt.Sprintf("/proc/%d/smaps_rollup", c.Process.Pid)
		tick := time.NewTicker(time.Millisecond)
	poll:
		for {
			select {
			case err = <-done:
				break poll
			case <-tick.C:
				sample(path, peak)
			}
		}
		tick.Stop()
	} else {
		err = <-done
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	if !smaps {
		fmt.Println(ru.Maxrss)
		return
	}
	peak["maxrss_kb"] = ru.Maxrss
	peak["cpu_us"] = (c.ProcessState.UserTime() + c.ProcessState.SystemTime()).Microseconds()
	out, _ := json.Marshal(peak)
	fmt.Println(string(out))
}

// fields are the smaps_rollup lines kept, by the JSON key they are printed under.
var fields = map[string]string{"Rss:": "rss_kb", "Pss:": "pss_kb", "Private_Clean:": "private_clean_kb",
	"Private_Dirty:": "private_dirty_kb", "Anonymous:": "anonymous_kb"}

// sample raises each peak to the value smaps_rollup shows now (nothing once the
// process has exited and the file is gone or empty).
func sample(path string, peak map[string]int64) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	now := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) < 2 {
			continue
		}
		if key, ok := fields[w[0]]; ok {
			if n, err := strconv.ParseInt(w[1], 10, 64); err == nil {
				now[key] = n
			}
		}
	}
	now["private_kb"] = now["private_clean_kb"] + now["private_dirty_kb"]
	for k, n := range now {
		peak[k] = max(peak[k], n)
	}
}
