package mcpserve

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

type noTools struct{}

func (noTools) Specs() []llm.ToolSpec { return nil }
func (noTools) ReadOnly(string) bool  { return false }
func (noTools) Call(context.Context, tool.Call, func(tool.Call, tool.Progress)) tool.Result {
	return tool.Result{}
}

// sdkHandlers counts the goroutines still inside the SDK's HTTP handler (a listening
// stream being served).
func sdkHandlers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "mcp.(*StreamableHTTPHandler).ServeHTTP") {
			n++
		}
	}
	return n
}

// Ending the context ends ServeHTTP, and with it every request it serves, even a
// client's listening stream (GET), which stays open as long as the client wants; nothing
// is left running once ServeHTTP has returned.
func TestServeHTTPEndsListeningStreams(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- ServeHTTP(ctx, Server(noTools{}, "test", ""), "127.0.0.1:0", func(u string) { urls <- u })
	}()
	url := <-urls
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	deadline := time.Now().Add(10 * time.Second)
	for sdkHandlers() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the client never opened its listening stream")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeHTTP did not return after its context ended")
	}
	if n := sdkHandlers(); n != 0 {
		t.Fatalf("%d request(s) still served after ServeHTTP returned", n)
	}
}
