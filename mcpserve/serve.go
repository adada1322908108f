// Package mcpserve offers a session's tools to other agents over MCP, on the official Go
// SDK. Every call goes through the session (its schema check, permission rules, hooks,
// sandbox and output budget); this package only translates.
package mcpserve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Tools is what is served: the tools' specs, whether each only reads, and a way to run a
// call through everything a session applies to the model's own calls.
type Tools interface {
	Specs() []llm.ToolSpec
	ReadOnly(name string) bool
	Call(ctx context.Context, c tool.Call, onProgress func(tool.Call, tool.Progress)) tool.Result
}

// Server builds the MCP server offering tools.
func Server(tools Tools, version, instructions string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "ouro", Version: version}, &mcp.ServerOptions{Instructions: instructions})
	var n atomic.Uint64
	for _, spec := range tools.Specs() {
		schema := json.RawMessage(spec.InputSchema)
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		t := &mcp.Tool{Name: spec.Name, Description: spec.Description, InputSchema: schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: tools.ReadOnly(spec.Name)}}
		s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			input := req.Params.Arguments
			if len(input) == 0 || string(input) == "null" {
				input = json.RawMessage(`{}`)
			}
			c := tool.Call{ID: "mcp_" + strconv.FormatUint(n.Add(1), 10), Name: spec.Name, Input: input}
			var progress func(tool.Call, tool.Progress)
			if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
				progress = func(_ tool.Call, p tool.Progress) {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Message: p.Message, Progress: p.Done, Total: p.Total})
				}
			}
			return result(tools.Call(ctx, c, progress)), nil
		})
	}
	return s
}

// result turns a tool result into MCP content.
func result(r tool.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError}
	for _, b := range r.Content {
		switch {
		case b.Type == llm.BlockText:
			out.Content = append(out.Content, &mcp.TextContent{Text: b.Text})
		case b.Type == llm.BlockImage && b.Source != nil:
			data, err := base64.StdEncoding.DecodeString(b.Source.Data)
			if err != nil {
				out.Content = append(out.Content, &mcp.TextContent{Text: fmt.Sprintf("[an image that could not be decoded: %v]", err)})
				continue
			}
			out.Content = append(out.Content, &mcp.ImageContent{MIMEType: b.Source.MediaType, Data: data})
		}
	}
	if len(out.Content) == 0 {
		out.Content = []mcp.Content{&mcp.TextContent{Text: "(no output)"}}
	}
	return out
}

// ServeStdio serves s on standard input and output until the client leaves or ctx ends.
func ServeStdio(ctx context.Context, s *mcp.Server) error {
	return s.Run(ctx, &mcp.StdioTransport{})
}

// ServeHTTP serves s over streamable HTTP on addr, which must be a loopback address
// (another agent on this machine; the tools act with the user's rights), until ctx ends.
// ready receives the URL once the listener is up.
func ServeHTTP(ctx context.Context, s *mcp.Server, addr string, ready func(url string)) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: write host:port, e.g. 127.0.0.1:8765", addr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--http %q: only a loopback address (127.0.0.1, ::1, localhost) may serve ouro's tools", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// Every request's context ends with the server, so a tool call under way stops too.
	base, stop := context.WithCancel(context.Background())
	defer stop()
	var inflight sync.WaitGroup
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inflight.Add(1)
		defer inflight.Done()
		h.ServeHTTP(w, r)
	}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base }}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	ready("http://" + ln.Addr().String() + "/mcp")
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// A client's listening stream (GET) stays open as long as the client likes, the SDK's
	// handler does not always notice its connection closing, and closing a session waits
	// for its calls: stop the calls (their contexts), end the sessions and cut the
	// connections, each step bounded by shutdownGrace, none waited on beyond it.
	stop()
	end := make(chan struct{})
	go func() {
		for ss := range s.Sessions() {
			go ss.Close()
		}
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if hs.Shutdown(sctx) != nil {
			_ = hs.Close()
		}
		inflight.Wait()
		close(end)
	}()
	select {
	case <-end:
	case <-time.After(2 * shutdownGrace):
		_ = hs.Close()
	}
	<-served
	return nil
}

// shutdownGrace bounds each step of ServeHTTP's shutdown: the requests under way finishing,
// then their handlers returning once their connections are cut.
const shutdownGrace = 400 * time.Millisecond
