// Command server is an MCP server for ouro's tests, on the official Go SDK, plus the bad
// servers a client must survive. MODE (first argument) picks the behaviour:
//
//	good      tools echo, image, progress, grow (adds a tool: list_changed), crash, slow,
//	          survey (asks the user for a form: elicitation);
//	          a prompt, a resource, instructions
//	hang      reads requests and never answers
//	garbage   answers everything with lines that are not JSON-RPC
//	exit      exits at once with status 3
//	badschema answers the handshake and lists tools whose schemas are broken
//
// MCP_TEST_DELAY (a duration) delays the start; MCP_TEST_PIDFILE receives the pid;
// MCP_TEST_MODE, when set, is the mode whatever the arguments (the server then stands in
// for another program, e.g. a plugin's "bun run ..."). Mode argv is good plus a tool argv
// that returns the arguments, working folder and CLAUDE_PLUGIN_ROOT it was started with.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 1x1 PNG.
var png = []byte{0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0d, 0x0a, 0x2d, 0xb4, 0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82}

func main() {
	if p := os.Getenv("MCP_TEST_PIDFILE"); p != "" {
		_ = os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	if d, err := time.ParseDuration(os.Getenv("MCP_TEST_DELAY")); err == nil {
		time.Sleep(d)
	}
	fmt.Fprintln(os.Stderr, "test server starting (this goes to the log, not the terminal)")
	mode := "good"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	if m := os.Getenv("MCP_TEST_MODE"); m != "" {
		mode = m
	}
	switch mode {
	case "good":
		good()
	case "wide":
		// good's tools and 40 more with sizeable schemas: enough to pass the first
		// request's budget however small ouro's own tools become.
		wide = true
		good()
	case "argv":
		argv = true
		good()
	case "hang":
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
		}
		select {}
	case "garbage":
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println("hello, I am not JSON-RPC")
		}
	case "exit":
		fmt.Fprintln(os.Stderr, "exiting at once")
		os.Exit(3)
	case "badschema":
		badSchema()
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		os.Exit(2)
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

var obj = map[string]any{"type": "object"}

// wide adds filler tools to good's server; argv adds the tool argv.
var wide, argv bool

func good() {
	s := mcp.NewServer(&mcp.Implementation{Name: "ouro-test", Version: "1"}, &mcp.ServerOptions{
		Instructions: "Use echo to repeat text back. TEST-INSTRUCTIONS-MARKER",
	})
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Echo the text back.", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(r.Params.Arguments, &in)
			return text("echo: " + in.Text), nil
		})
	for i := 0; wide && i < 40; i++ {
		props := map[string]any{}
		for _, f := range []string{"owner", "repository", "title", "body", "labels", "assignees"} {
			props[f] = map[string]any{"type": "string", "description": "The " + f + " of the item this operation works on."}
		}
		s.AddTool(&mcp.Tool{Name: fmt.Sprintf("filler_%02d", i), Description: "A filler operation with a realistic schema.",
			InputSchema: map[string]any{"type": "object", "properties": props}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("filler"), nil })
	}
	if argv {
		s.AddTool(&mcp.Tool{Name: "argv", Description: "Say how this server was started.", InputSchema: obj},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				wd, _ := os.Getwd()
				data, _ := json.Marshal(map[string]any{"args": os.Args[1:], "cwd": wd, "CLAUDE_PLUGIN_ROOT": os.Getenv("CLAUDE_PLUGIN_ROOT")})
				return text("argv: " + string(data)), nil
			})
	}
	s.AddTool(&mcp.Tool{Name: "image", Description: "Return a tiny PNG.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a pixel:"}, &mcp.ImageContent{MIMEType: "image/png", Data: png}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "progress", Description: "Report progress three times.", InputSchema: obj},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tok := r.Params.GetProgressToken()
			for i := 1; i <= 3; i++ {
				if tok != nil {
					_ = r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
				}
				time.Sleep(20 * time.Millisecond)
			}
			return text("progress done"), nil
		})
	s.AddTool(&mcp.Tool{Name: "grow", Description: "Add the tool 'grown'.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(&mcp.Tool{Name: "grown", Description: "A tool that appeared later.", InputSchema: obj},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text("grown works"), nil
				})
			// The SDK sends list_changed 10ms after the change: let it leave before the answer.
			time.Sleep(200 * time.Millisecond)
			return text("added the tool grown"), nil
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "Exit in the middle of the call.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(7)
			return nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "slow", Description: "Sleep for the given seconds.", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"seconds": map[string]any{"type": "number"}}}},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Seconds float64 }
			_ = json.Unmarshal(r.Params.Arguments, &in)
			select {
			case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
			case <-ctx.Done():
			}
			return text("slept"), nil
		})
	s.AddTool(&mcp.Tool{Name: "survey", Description: "Ask the user for their details.", InputSchema: obj},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Multi round-trip (SEP-2322): the first call asks, the retry carries the answer.
			if res, ok := r.Params.InputResponses["who"].(*mcp.ElicitResult); ok {
				data, _ := json.Marshal(res.Content)
				return text("answer: " + res.Action + " " + string(data)), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{
				Message: "Who are you?\x1b[31m (ELICIT-MARKER)", RequestedSchema: map[string]any{
					"type": "object",
					"properties": map[string]any{
						"name":      map[string]any{"type": "string", "title": "Your name", "minLength": 2},
						"age":       map[string]any{"type": "integer", "minimum": 0},
						"color":     map[string]any{"type": "string", "enum": []string{"red", "green"}},
						"subscribe": map[string]any{"type": "boolean", "default": false},
					},
					"required": []string{"name"},
				}}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greet someone.", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + r.Params.Arguments["name"] + " (PROMPT-MARKER)."}}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://hello", Name: "hello", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://hello", MIMEType: "text/plain", Text: "RESOURCE-MARKER hello from the resource"}}}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
	}
}

// badSchema speaks just enough JSON-RPC by hand to list tools no SDK server would allow.
func badSchema() {
	sc := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		var result any
		switch req.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &p)
			result = map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "bad", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []any{
				map[string]any{"name": "notobject", "description": "schema is a string type", "inputSchema": map[string]any{"type": "string"}},
				map[string]any{"name": "nocompile", "description": "schema has a bad type", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": 42}}}},
				map[string]any{"name": "fine", "description": "a good tool", "inputSchema": map[string]any{"type": "object"}},
			}}
		case "tools/call":
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "fine works"}}}
		default:
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
			continue
		}
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
}
