// Command conformance is ouro's MCP client as the official conformance suite drives it
// (`conformance client --command <this>`): it connects to the URL it is given through
// mcpclient, exactly as a session does, and does what the scenario
// (MCP_CONFORMANCE_SCENARIO) asks of a client. Exit status 0 means the client side
// completed; the suite judges the protocol.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/ouroagent/ouro/mcpclient"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/tool"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance SERVER_URL")
		os.Exit(2)
	}
	if err := run(os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, "conformance client:", err)
		os.Exit(1)
	}
}

// pressEnter answers a form as a user who presses Enter at every field does in the
// REPL: through the same Fill, taking each field's default.
func pressEnter(_ context.Context, e *mcpclient.Elicitation) mcpclient.Answer {
	content, err := e.Fill(func(mcpclient.Field, string) (string, error) { return "", nil })
	if err != nil {
		return mcpclient.Answer{Action: mcpclient.ElicitCancel, Reason: err.Error()}
	}
	return mcpclient.Answer{Action: mcpclient.ElicitAccept, Content: content}
}

// browse is the user's browser in a login: it opens the authorization URL, which the
// suite's authorization server answers at once with the redirect to ouro's loopback
// listener, and follows it there.
func browse(authURL string) error {
	resp, err := http.Get(authURL)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

func run(scenario, url string) error {
	srv := mcpconf.Server{Name: "c", Type: mcpconf.TypeHTTP, URL: url, Scope: mcpconf.ScopeDynamic,
		OAuth: &mcpconf.OAuth{ClientMetadataURL: "https://conformance-test.local/client-metadata.json"}}
	// Pre-registration: the scenario hands over the client it registered.
	var sc struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &sc) == nil && sc.ClientID != "" {
		srv.OAuth.ClientID, srv.OAuth.ClientSecret = sc.ClientID, sc.ClientSecret
	}
	authDir, err := os.MkdirTemp("", "ouro-conformance-auth-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(authDir)
	m := mcpclient.New([]mcpconf.Server{srv},
		mcpclient.Options{StartTimeout: 20 * time.Second, Version: "conformance", Elicit: pressEnter,
			AuthDir: authDir, Login: browse})
	m.Start()
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	m.Wait(ctx, 25*time.Second)
	st := m.Status()[0]
	if st.State != mcpclient.StateConnected {
		return fmt.Errorf("not connected: %s %s", st.State, st.Error)
	}
	call := func(name string, args any) error {
		for _, t := range m.Tools() {
			if t.Spec().Name != mcpclient.ToolName("c", name) {
				continue
			}
			in, _ := json.Marshal(args)
			res, err := t.Run(ctx, tool.NewExec(tool.Call{ID: "1", Name: t.Spec().Name, Input: in}, nil, nil))
			if err != nil {
				return err
			}
			fmt.Println(res.Text())
			if res.IsError {
				return fmt.Errorf("%s failed: %s", name, res.Text())
			}
			return nil
		}
		return fmt.Errorf("the server offers no tool %q (tools: %v)", name, st.Tools)
	}
	if strings.HasPrefix(scenario, "auth/") {
		return call("test-tool", map[string]any{})
	}
	switch scenario {
	case "tools_call":
		return call("add_numbers", map[string]any{"a": 5, "b": 3})
	case "sse-retry":
		return call("test_reconnection", map[string]any{})
	case "elicitation-sep1034-client-defaults":
		return call("test_client_elicitation_defaults", map[string]any{})
	}
	return nil // initialize and the rest: connecting and listing is the client's part
}
