package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/mcpauth"
	"github.com/ouroagent/ouro/mcpclient"
	"github.com/ouroagent/ouro/mcpconf"
)

// remoteServer finds a configured streamable HTTP server, or says why name is not one.
func remoteServer(name string) (mcpconf.Server, string, string, error) {
	cfg, cwd, _, err := loadMCP()
	if err != nil {
		return mcpconf.Server{}, "", "", err
	}
	s, ok := cfg.Find(name)
	if !ok {
		return s, "", "", fmt.Errorf("no MCP server named %q; `ouro mcp list` shows them", name)
	}
	if s.Type != mcpconf.TypeHTTP {
		return s, "", "", fmt.Errorf("%s is a %s server: OAuth logins are for streamable HTTP servers (type http)", name, s.Type)
	}
	_, _, ouroHome, err := mcpPlaces()
	if err != nil {
		return s, "", "", err
	}
	return s, cwd, harness.MCPAuthDir(ouroHome), nil
}

func newMCPLoginCmd() *cobra.Command {
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "login NAME",
		Short: "Log in to a remote MCP server with OAuth (prints the URL to open; $BROWSER opens it)",
		Long: `Log in to a streamable HTTP MCP server that asks for OAuth: ouro finds its authorization
server, registers (the server entry's "oauth": {"clientId", "clientSecret", "callbackPort"}
when set, else dynamic registration), and sends you to the authorization page; the answer
comes back to a listener on 127.0.0.1. The tokens are kept in ~/.ouro/mcp-auth (readable by
you alone) and refreshed as they expire; sessions use them without asking again.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, cwd, authDir, err := remoteServer(args[0])
			if err != nil {
				return err
			}
			if !s.Runnable() {
				return fmt.Errorf("%s is not used (%s): %s", s.Name, s.State, s.Reason)
			}
			errOut := cmd.ErrOrStderr()
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			m := mcpclient.New([]mcpconf.Server{s}, mcpclient.Options{CWD: cwd, Version: version, AuthDir: authDir,
				StartTimeout: timeout, Login: openAuthURL(s.Name, errOut)})
			m.Start()
			m.Wait(ctx, timeout)
			st := m.Status()[0]
			m.Close()
			if ctx.Err() != nil {
				return fmt.Errorf("login to %s stopped", s.Name)
			}
			if st.State != mcpclient.StateConnected {
				return fmt.Errorf("login to %s failed: %s", s.Name, st.Error)
			}
			sv, err := mcpauth.Store{Dir: authDir}.Load(s.URL)
			if err != nil {
				return err
			}
			if sv == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%s did not ask for a login: it works as it is (%d tools).\n", s.Name, len(st.Tools))
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Logged in to %s (%d tools). The token is kept in %s.\n", s.Name, len(st.Tools), authDir)
			return nil
		},
	}
	c.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "how long to wait for the authorization")
	return c
}

// openAuthURL shows the authorization URL and, when $BROWSER names a program, opens it
// there (started, not waited for; no shell).
func openAuthURL(name string, w io.Writer) func(string) error {
	return func(u string) error {
		fmt.Fprintf(w, "To log in to %s, open this URL in your browser:\n\n  %s\n\nWaiting for the authorization (Ctrl-C stops)…\n", name, u)
		if b := os.Getenv("BROWSER"); b != "" {
			c := exec.Command(b, u)
			if err := c.Start(); err != nil {
				fmt.Fprintf(w, "ouro: $BROWSER (%s) did not start: %v; open the URL yourself\n", b, err)
				return nil
			}
			go c.Wait()
		}
		return nil
	}
}

func newMCPLogoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "logout NAME",
		Short: "Forget the OAuth tokens of a remote MCP server",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, _, authDir, err := remoteServer(args[0])
			if err != nil {
				return err
			}
			had, err := mcpauth.Store{Dir: authDir}.Delete(s.URL)
			if err != nil {
				return err
			}
			if !had {
				fmt.Fprintf(cmd.OutOrStdout(), "%s has no saved login.\n", s.Name)
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Logged out of %s: its tokens are deleted.\n", s.Name)
			return nil
		},
	}
}

// oauthLine says how a streamable HTTP server's OAuth login stands, for `ouro mcp get`.
func oauthLine(s mcpconf.Server) string {
	var parts []string
	if o := s.OAuth; o != nil && o.ClientID != "" {
		parts = append(parts, "client id "+o.ClientID)
	}
	if o := s.OAuth; o != nil && o.CallbackPort != 0 {
		parts = append(parts, fmt.Sprintf("callback port %d", o.CallbackPort))
	}
	state := "not logged in (ouro mcp login " + s.Name + " when the server asks for it)"
	if _, _, ouroHome, err := mcpPlaces(); err == nil {
		if sv, err := (mcpauth.Store{Dir: harness.MCPAuthDir(ouroHome)}).Load(s.URL); err != nil {
			state = "the saved login cannot be read: " + err.Error()
		} else if sv != nil {
			state = "logged in"
			if !sv.Token.Expiry.IsZero() {
				state += ", token expires " + sv.Token.Expiry.Local().Format(time.DateTime) + " (refreshed as needed)"
			}
		}
	}
	return strings.Join(append(parts, state), "; ")
}
