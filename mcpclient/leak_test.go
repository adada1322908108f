package mcpclient

import (
	"context"
	"github.com/ouroagent/ouro/mcpconf"
	"runtime"
	"strings"
	"testing"
	"time"
)

// sdkGoroutines are the goroutines running the SDK's or this package's code.
func sdkGoroutines() []string {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.HasPrefix(g, "goroutine ") && !strings.Contains(g, "testing.") &&
			(strings.Contains(g, "modelcontextprotocol/go-sdk") || strings.Contains(g, "ouro/mcpclient.")) {
			out = append(out, g)
		}
	}
	return out
}

// A server dying in the middle of a call, then the session closing: nothing of the
// connection is left running.
func TestCrashLeavesNoGoroutine(t *testing.T) {
	m := New([]mcpconf.Server{srv("t")}, Options{LogDir: t.TempDir()})
	m.Start()
	m.Wait(context.Background(), 20*time.Second)
	echo := findTool(m, "mcp__t__echo")
	if res := call(t, findTool(m, "mcp__t__crash"), `{}`, nil); !res.IsError {
		t.Fatalf("crash: %+v", res)
	}
	if res := call(t, echo, `{"text":"x"}`, nil); !res.IsError || !strings.Contains(res.Text(), "not connected") {
		t.Fatalf("after the crash: %+v", res)
	}
	m.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := sdkGoroutines()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutine(s) left:\n%s", len(left), strings.Join(left, "\n\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Reconnect brings a crashed server back with its tools; an unknown or starting one is
// refused with the reason.
func TestReconnect(t *testing.T) {
	m := start(t, Options{}, srv("t"))
	m.Wait(context.Background(), 20*time.Second)
	call(t, findTool(m, "mcp__t__crash"), `{}`, nil)
	if st := status(m, "t"); st.State != StateFailed {
		t.Fatalf("after the crash: %+v", st)
	}
	if err := m.Reconnect("nope"); err == nil {
		t.Fatal("reconnected a server that does not exist")
	}
	if err := m.Reconnect("t"); err != nil {
		t.Fatal(err)
	}
	if err := m.Reconnect("t"); err == nil || !strings.Contains(err.Error(), "starting already") {
		t.Fatalf("a second reconnect while starting: %v", err)
	}
	m.Wait(context.Background(), 20*time.Second)
	if res := call(t, findTool(m, "mcp__t__echo"), `{"text":"again"}`, nil); res.Text() != "echo: again" {
		t.Fatalf("after reconnecting: %+v", res)
	}
}
