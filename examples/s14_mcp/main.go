// s14: MCP. External tools join the same tool pool as the built-in ones. A server (here
// an in-process one on the official Go SDK, over streamable HTTP; usually a command run
// over stdio) lists its tools; each becomes mcp__<server>__<tool> in the registry, with
// its schema checked like any other, and the loop calls it without knowing where it
// runs. Servers start in the background: one that cannot start is reported, never
// waited on.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s14_mcp "how many words are in 'to be or not to be'?"
//
// Without a key it plays a scripted model that calls the server's tool twice, once with
// an input its schema refuses.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mcpclient"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/tool"
)

// serve starts a tiny MCP server with one tool, count_words, and returns its URL.
func serve() string {
	s := mcp.NewServer(&mcp.Implementation{Name: "words", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "count_words", Description: "Count the words of a text.", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(r.Params.Arguments, &in)
			n := len(strings.Fields(in.Text))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d words", n)}}}, nil
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go http.Serve(ln, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	return "http://" + ln.Addr().String()
}

func main() {
	servers := []mcpconf.Server{
		{Name: "words", Type: mcpconf.TypeHTTP, URL: serve()},
		{Name: "broken", Type: mcpconf.TypeStdio, Command: "/no/such/mcp-server"},
	}
	m := mcpclient.New(servers, mcpclient.Options{StartTimeout: 10 * time.Second})
	m.Start() // returns at once; the servers connect in the background
	defer m.Close()
	m.Wait(context.Background(), 10*time.Second)
	for _, st := range m.Status() {
		fmt.Printf("server %-7s %-9s %s%s\n", st.Name, st.State, strings.Join(st.Tools, ", "), st.Error)
	}

	registry := tool.NewRegistry()
	for _, t := range m.Tools() {
		if err := registry.Add(t); err != nil {
			fmt.Println("left out:", err)
		}
	}

	var model llm.Provider = scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "mcp__words__count_words", Input: []byte(`{"text":"to be or not to be"}`)}}},
		{ToolCalls: []scripted.ToolCall{{Name: "mcp__words__count_words", Input: []byte(`{"text":6}`)}}},
		{Text: "(scripted) The server counted six words; the second call was refused before it left ouro."},
	}})
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}
	a, err := agent.New(agent.Config{
		Provider: model, Model: llm.DefaultModel, Tools: registry,
		Observers: []agent.Observer{func(e agent.Event) {
			if e.Type == agent.EventToolEnd {
				fmt.Printf("── %s %s (error=%v)\n%s\n", e.Call.Name, e.Call.Input, e.Result.IsError, e.Result.ResultText())
			}
		}},
	})
	if err != nil {
		panic(err)
	}
	prompt := "How many words are in 'to be or not to be'?"
	if len(os.Args) > 1 {
		prompt = strings.Join(os.Args[1:], " ")
	}
	o := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock(prompt))
	fmt.Printf("%s\n[%s after %d turns]\n", o.Result, o.Status, o.Turns)
}
