package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

func newFakeModelCmd() *cobra.Command {
	var script, host string
	var port int
	var exitWhenDone bool
	c := &cobra.Command{
		Use:   "fake-model --script FILE [--port P]",
		Short: "Serve a scripted model over the Anthropic and OpenAI HTTP APIs",
		Long: `fake-model answers POST /v1/messages (Anthropic Messages) and
POST /v1/chat/completions (OpenAI Chat Completions), streamed or not, from a script, one
turn per request. Point ouro (or any client) at it to test hooks, settings and tools
deterministically:

  ouro fake-model --script s.json --port 8089 &
  ANTHROPIC_BASE_URL=http://127.0.0.1:8089 ANTHROPIC_API_KEY=fake ouro -p "go"

The first line printed is the base URL. A script is JSON:

  {"turns": [
    {"text": "Let me look.", "tool_calls": [{"name": "Bash", "input": {"command": "ls"}}]},
    {"expect_contains": "go.mod", "text": "There is a go.mod."},
    {"fault": {"status": 529}, "times": 2},
    {"text": "Back after two overloaded answers."}
  ]}

Turn fields: text, thinking, tool_calls [{id, name, input | partial_input}], stop_reason
(end_turn, tool_use, max_tokens, pause_turn, refusal, ...), usage, expect_contains (the
request's last message must contain it, else HTTP 400), fault {status, message,
retry_after, cut_stream, prompt_too_long} with times, web_search [{query, results
[{url, title, page_age}] | error_code}]: searches the model makes on the server's side,
for a request that declares the web_search_20250305 tool (WebSearch's), answered as
server_tool_use and web_search_tool_result blocks, results filtered by the request's
allowed_domains or blocked_domains. Requests are also checked like the real API checks
them: every tool_use must be answered by a tool_result.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if script == "" {
				return errors.New("--script is required: the JSON file the fake model answers from (see --help)")
			}
			s, err := scripted.Load(script)
			if err != nil {
				return err
			}
			srv, err := fakeserver.New(s)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
			if err != nil {
				return fmt.Errorf("listen on %s:%d: %w", host, port, err)
			}
			out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
			done := make(chan struct{}, 1)
			srv.OnRequest = func(r fakeserver.Recorded) {
				step := "no step left"
				if r.Step >= 0 {
					step = fmt.Sprintf("step %d", r.Step+1)
				}
				fmt.Fprintf(errOut, "fake-model: %s %s (%s, stream=%v): %s\n", r.Protocol, r.Path, step, r.Stream, lastSummary(r.Messages))
				if srv.Remaining() == 0 {
					select {
					case done <- struct{}{}:
					default:
					}
				}
			}
			fmt.Fprintf(out, "http://%s\n", ln.Addr())
			fmt.Fprintf(errOut, "fake-model: serving %s (%d steps) on http://%s; Ctrl-C stops it\n", script, len(s.Steps()), ln.Addr())
			hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			go func() {
				select {
				case <-ctx.Done():
				case <-waitDone(done, exitWhenDone):
					time.Sleep(200 * time.Millisecond) // let the last response flush
				}
				shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				_ = hs.Shutdown(shutdown)
			}()
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	c.Flags().StringVar(&script, "script", "", "JSON script to answer from (required)")
	c.Flags().IntVar(&port, "port", 0, "port to listen on (0 picks a free one)")
	c.Flags().StringVar(&host, "host", "127.0.0.1", "address to listen on")
	c.Flags().BoolVar(&exitWhenDone, "exit-when-done", false, "exit once every step of the script was played")
	return c
}

func waitDone(done chan struct{}, enabled bool) <-chan struct{} {
	if !enabled {
		return nil
	}
	return done
}

func lastSummary(msgs []llm.Message) string {
	if len(msgs) == 0 {
		return "(no messages)"
	}
	m := msgs[len(msgs)-1]
	var parts []string
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			parts = append(parts, fmt.Sprintf("text %q", textcut.Runes(b.Text, 60, "…")))
		case llm.BlockToolResult:
			parts = append(parts, "tool_result "+b.ToolUseID)
		default:
			parts = append(parts, b.Type)
		}
	}
	return fmt.Sprintf("%d messages, last (%s): %s", len(msgs), m.Role, strings.Join(parts, ", "))
}
