package ui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ouroagent/ouro/mcpclient"
)

// mcpCommand is /mcp (the servers' status), /mcp reconnect NAME, which starts a
// server again (one that failed, or needed the login `ouro mcp login` has since made),
// and /mcp login NAME, which runs a remote server's OAuth login and reconnects it; both
// wait for the server as a session's start does.
func (r *REPL) mcpCommand(args string) error {
	if args == "" {
		r.showMCP()
		return nil
	}
	verb, name, _ := strings.Cut(args, " ")
	name = strings.TrimSpace(name)
	if (verb != "reconnect" && verb != "login") || name == "" {
		return fmt.Errorf("/mcp %s: use /mcp, /mcp reconnect NAME or /mcp login NAME", args)
	}
	m := r.sess.MCP()
	if m == nil {
		return fmt.Errorf("no MCP servers configured")
	}
	var err error
	if verb == "login" {
		err = m.Login(context.Background(), name, r.openAuthURL(name), mcpLoginWait)
	} else {
		err = m.Reconnect(name)
	}
	if err != nil {
		return err
	}
	m.Wait(context.Background(), mcpReconnectWait)
	for _, st := range m.Status() {
		if st.Name != name {
			continue
		}
		switch st.State {
		case mcpclient.StateConnected:
			fmt.Fprintf(r.Out, "%s: connected (%d tools)\n", name, len(st.Tools))
		case mcpclient.StatePending:
			fmt.Fprintf(r.Out, "%s: still starting; its tools join once it is ready\n", name)
		default:
			fmt.Fprintf(r.Out, "%s: %s: %s\n", name, st.State, st.Error)
		}
	}
	return nil
}

// mcpLoginWait bounds how long /mcp login waits for the user to authorize.
const mcpLoginWait = 5 * time.Minute

// openAuthURL shows the authorization URL of a login and, when $BROWSER names a
// program, opens it there.
func (r *REPL) openAuthURL(name string) func(string) error {
	return func(u string) error {
		r.endLine()
		fmt.Fprintf(r.Out, "To log in to %s, open this URL in your browser:\n\n  %s\n\nWaiting for the authorization…\n", name, u)
		if b := os.Getenv("BROWSER"); b != "" {
			c := exec.Command(b, u)
			if err := c.Start(); err == nil {
				go c.Wait()
			}
		}
		return nil
	}
}

// mcpReconnectWait bounds how long /mcp reconnect waits for the server.
const mcpReconnectWait = 30 * time.Second

// showMCP prints each MCP server's status, tools, prompts and errors (/mcp).
func (r *REPL) showMCP() {
	m := r.sess.MCP()
	if m == nil {
		fmt.Fprintln(r.Out, "No MCP servers configured. `ouro mcp add` adds one; .mcp.json and --mcp-config work too.")
		return
	}
	for _, st := range m.Status() {
		fmt.Fprintf(r.Out, "%s (%s, %s): %s\n", st.Name, orText(st.Type, "?"), orText(st.Scope, "?"), st.State)
		if st.Error != "" {
			fmt.Fprintf(r.Out, "  error: %s\n", st.Error)
		}
		if len(st.Tools) > 0 {
			fmt.Fprintf(r.Out, "  tools: %s\n", strings.Join(st.Tools, ", "))
		}
		for _, x := range st.Refused {
			fmt.Fprintf(r.Out, "  left out: %s\n", x)
		}
		if len(st.Prompts) > 0 {
			fmt.Fprintf(r.Out, "  prompts: /%s\n", strings.Join(st.Prompts, ", /"))
		}
		if st.Log != "" {
			fmt.Fprintf(r.Out, "  log: %s\n", st.Log)
		}
	}
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// approveMCP asks whether a server of the project's .mcp.json may run.
func (a *replApprover) approveMCP(name, what string) bool {
	r := a.r
	r.inMu.Lock()
	defer r.inMu.Unlock()
	r.endLine()
	fmt.Fprintf(r.Out, "\nThis project's .mcp.json defines the MCP server %q, which runs: %s\n  Servers run with your rights. Use it in this project from now on? [y] yes  [n] no\n? ", name, what)
	line, err := r.readLine(context.Background())
	if err != nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
