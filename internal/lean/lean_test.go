package lean

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// Dropping the read-only mappings of the running binary is safe: the code and data come
// back from the file at their next touch, identical.
func TestReleaseInitPagesKeepsTheProgramWorking(t *testing.T) {
	before := rss(t)
	ReleaseInitPages()
	after := rss(t)
	// Work that needs code and read-only data from all over the binary.
	var b strings.Builder
	for i := range 1000 {
		b.WriteString(strings.Repeat("x", i%7))
	}
	runtime.GC()
	if b.Len() == 0 {
		t.Fatal("no output")
	}
	if runtime.GOOS == "linux" && after >= before {
		t.Errorf("resident before %d kB, after %d kB: nothing was released", before, after)
	}
}

func rss(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb int
			_, _ = fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb
		}
	}
	return 0
}
