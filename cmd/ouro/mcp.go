package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/mcpclient"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/plugin"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/ui"
)

// mcpServers is the init event's mcp_servers; servers that are not connected are also
// named on stderr, with why, so a headless run never leaves them out silently.
func mcpServers(sess *harness.Session, errOut io.Writer) []ui.MCPServer {
	m := sess.MCP()
	if m == nil {
		return nil
	}
	var out []ui.MCPServer
	for _, st := range m.Status() {
		out = append(out, ui.MCPServer{Name: st.Name, Status: st.State, Error: st.Error})
		switch st.State {
		case mcpclient.StateConnected:
			for _, r := range st.Refused {
				fmt.Fprintf(errOut, "ouro: mcp: %s: tool left out: %s\n", st.Name, r)
			}
		case mcpclient.StatePending:
			fmt.Fprintf(errOut, "ouro: mcp: %s is still starting; its tools join once it is ready\n", st.Name)
		default:
			fmt.Fprintf(errOut, "ouro: mcp: %s is not used (%s): %s\n", st.Name, st.State, st.Error)
		}
	}
	return out
}

// mcpPlaces are where the mcp commands read and write: the project folder (resolved as a
// session resolves it), the user's home and ouro's.
func mcpPlaces() (cwd, home, ouroHome string, err error) {
	if cwd, err = os.Getwd(); err != nil {
		return
	}
	if real, e := filepath.EvalSymlinks(cwd); e == nil {
		cwd = real
	}
	if home, err = os.UserHomeDir(); err != nil {
		return
	}
	ouroHome, err = session.Home()
	return
}

// mcpPluginDirs are the `ouro mcp --plugin-dir` folders, whose plugins' servers the
// subcommands list and approve as a session with the same flags would start them.
var mcpPluginDirs []string

func loadMCP() (*mcpconf.Config, string, string, error) {
	cwd, home, ouroHome, err := mcpPlaces()
	if err != nil {
		return nil, "", "", err
	}
	ps := cliPlugins(mcpPluginDirs, cwd, os.Stderr)
	cfg, err := mcpconf.Load(mcpconf.Options{CWD: cwd, UserHome: home, OuroHome: ouroHome,
		Plugins: plugin.MCPServers(ps, func(p plugin.Plugin) string { return plugin.DataDir(ouroHome, p.Name) })})
	return cfg, cwd, home, err
}

func newMCPCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Configure and check MCP servers, or serve ouro's tools over MCP",
		Long: `MCP servers add tools to a session, named mcp__<server>__<tool>. They are configured as
in Claude Code: the project's .mcp.json (shared; each server needs your approval once),
your servers for this project only (local scope) or for every project (user scope) in
~/.ouro.json (~/.claude.json is read too), and --mcp-config. A plugin's servers
(its .mcp.json or "mcpServers" in its plugin.json) are plugin:<plugin>:<server>, their
tools mcp__plugin_<plugin>_<server>__<tool>; each needs your approval once per project,
as a .mcp.json server does.`,
	}
	c.PersistentFlags().StringArrayVar(&mcpPluginDirs, "plugin-dir", nil, "also the MCP servers of the plugin in this folder, as a session with --plugin-dir (repeatable)")
	c.AddCommand(newMCPListCmd(), newMCPGetCmd(), newMCPAddCmd(), newMCPAddJSONCmd(), newMCPRemoveCmd(), newMCPApproveCmd(), newMCPServeCmd(),
		newMCPLoginCmd(), newMCPLogoutCmd())
	return c
}

// checkServers connects to the runnable servers to report their health.
func checkServers(cfg *mcpconf.Config, cwd string) *mcpclient.Manager {
	o := mcpclient.Options{CWD: cwd, Version: version, Supervise: true}
	if _, _, ouroHome, err := mcpPlaces(); err == nil {
		o.AuthDir = harness.MCPAuthDir(ouroHome)
	}
	o.TimeoutsFromEnv(os.Getenv)
	m := mcpclient.New(cfg.Servers, o)
	m.Start()
	m.Wait(context.Background(), time.Hour) // each start is bounded by MCP_TIMEOUT
	return m
}

func describeState(st mcpclient.Status) string {
	switch st.State {
	case mcpclient.StateConnected:
		return "✓ Connected"
	case mcpconf.StateNeedsApproval:
		return "⚠ Needs approval (ouro mcp approve " + st.Name + ")"
	case mcpconf.StateDisabled:
		return "○ Disabled"
	case mcpclient.StateNeedsAuth:
		return "⚠ Needs authentication (ouro mcp login " + st.Name + ")"
	case mcpclient.StatePending:
		return "… Still starting"
	}
	return "✗ Failed to connect: " + st.Error
}

func target(s mcpconf.Server) string {
	if s.Type == mcpconf.TypeStdio {
		return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
	}
	return s.URL + " (" + strings.ToUpper(s.Type) + ")"
}

func newMCPListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the configured MCP servers and check that they start",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, cwd, _, err := loadMCP()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, w := range cfg.Warnings {
				fmt.Fprintf(cmd.ErrOrStderr(), "ouro: mcp: %s\n", w)
			}
			if len(cfg.Servers) == 0 {
				fmt.Fprintln(out, "No MCP servers configured. Use `ouro mcp add` to add a server.")
				return nil
			}
			fmt.Fprintln(out, "Checking MCP server health...")
			fmt.Fprintln(out)
			m := checkServers(cfg, cwd)
			defer m.Close()
			for _, st := range m.Status() {
				s, _ := cfg.Find(st.Name)
				fmt.Fprintf(out, "%s: %s - %s\n", st.Name, target(s), describeState(st))
			}
			return nil
		},
	}
}

var scopeWords = map[string]string{
	mcpconf.ScopeLocal:   "Local config (private to you in this project)",
	mcpconf.ScopeProject: "Project config (shared via .mcp.json)",
	mcpconf.ScopeUser:    "User config (available in all your projects)",
	mcpconf.ScopeDynamic: "Dynamic config (--mcp-config)",
	mcpconf.ScopePlugin:  "Plugin config (the plugin's .mcp.json or plugin.json)",
}

func newMCPGetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "get NAME",
		Short: "Show one MCP server's configuration, status and tools",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, cwd, _, err := loadMCP()
			if err != nil {
				return err
			}
			s, ok := cfg.Find(args[0])
			if !ok {
				return fmt.Errorf("no MCP server named %q; `ouro mcp list` shows them", args[0])
			}
			one := &mcpconf.Config{Servers: []mcpconf.Server{s}}
			m := checkServers(one, cwd)
			defer m.Close()
			st := m.Status()[0]
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s:\n  Scope: %s\n  Status: %s\n  Type: %s\n", s.Name, scopeWords[s.Scope], describeState(st), s.Type)
			if s.Type == mcpconf.TypeStdio {
				fmt.Fprintf(out, "  Command: %s\n  Args: %s\n  Environment:\n", s.Command, strings.Join(s.Args, " "))
				for _, k := range mcpconf.Names(s.Env) {
					fmt.Fprintf(out, "    %s=%s\n", k, s.Env[k])
				}
			} else {
				fmt.Fprintf(out, "  URL: %s\n  Headers:\n", s.URL)
				for _, k := range mcpconf.Names(s.Headers) {
					fmt.Fprintf(out, "    %s: %s\n", k, s.Headers[k])
				}
				if s.Type == mcpconf.TypeHTTP {
					fmt.Fprintf(out, "  OAuth: %s\n", oauthLine(s))
				}
			}
			if len(st.Tools) > 0 {
				fmt.Fprintf(out, "  Tools: %s\n", strings.Join(st.Tools, ", "))
			}
			for _, r := range st.Refused {
				fmt.Fprintf(out, "  Left out: %s\n", r)
			}
			if st.Log != "" {
				fmt.Fprintf(out, "  Log: %s\n", st.Log)
			}
			fmt.Fprintf(out, "\nTo remove this server, run: ouro mcp remove %q -s %s\n", s.Name, s.Scope)
			return nil
		},
	}
}

func scopeFlag(c *cobra.Command, scope *string) {
	c.Flags().StringVarP(scope, "scope", "s", mcpconf.ScopeLocal, "where to keep it: local (you, this project), project (.mcp.json, shared) or user (you, every project)")
}

func newMCPAddCmd() *cobra.Command {
	var scope, transport, clientID string
	var envs, headers []string
	var callbackPort int
	c := &cobra.Command{
		Use:   "add [options] NAME COMMAND_OR_URL [ARGS...]",
		Short: "Add an MCP server",
		Long: `Add an MCP server, as Claude Code's 'claude mcp add' does:

  ouro mcp add my-server -e API_KEY=xyz -- npx -y @some/server
  ouro mcp add --transport http notion https://mcp.notion.com/mcp
  ouro mcp add --transport sse -H "Authorization: Bearer x" legacy https://example.com/sse
  ouro mcp add -t http --client-id ID --callback-port 8080 corp https://mcp.corp.example/mcp

Options come before NAME; everything after the command is its arguments.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			cwd, home, _, err := mcpPlaces()
			if err != nil {
				return err
			}
			name := args[0]
			e := mcpconf.Entry{Type: transport}
			switch transport {
			case mcpconf.TypeStdio, "":
				e.Type = ""
				e.Command, e.Args = args[1], args[2:]
				if len(headers) > 0 {
					return fmt.Errorf("--header applies to http and sse servers, not stdio")
				}
			case mcpconf.TypeHTTP, mcpconf.TypeSSE:
				if len(args) > 2 {
					return fmt.Errorf("an %s server takes a URL only, not arguments (%s)", transport, strings.Join(args[2:], " "))
				}
				e.URL = args[1]
				if len(envs) > 0 {
					return fmt.Errorf("--env applies to stdio servers; an %s server takes --header", transport)
				}
			default:
				return fmt.Errorf("unknown transport %q: use stdio, http or sse", transport)
			}
			for _, kv := range envs {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return fmt.Errorf("--env %q: write KEY=value", kv)
				}
				if e.Env == nil {
					e.Env = map[string]string{}
				}
				e.Env[k] = v
			}
			for _, h := range headers {
				k, v, ok := strings.Cut(h, ":")
				if !ok || strings.TrimSpace(k) == "" {
					return fmt.Errorf("--header %q: write \"Name: value\"", h)
				}
				if e.Headers == nil {
					e.Headers = map[string]string{}
				}
				e.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			if clientID != "" || callbackPort != 0 {
				if e.Type != mcpconf.TypeHTTP {
					return fmt.Errorf("--client-id and --callback-port are for OAuth logins to http servers")
				}
				e.OAuth = &mcpconf.OAuth{ClientID: clientID, CallbackPort: callbackPort}
			}
			if err := mcpconf.Add(home, cwd, scope, name, e); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Added %s MCP server %s to %s config\n", orStdio(e.Type), name, scope)
			return nil
		},
	}
	c.Flags().SetInterspersed(false) // `add srv npx -y pkg`: -y belongs to npx
	scopeFlag(c, &scope)
	c.Flags().StringVarP(&transport, "transport", "t", mcpconf.TypeStdio, "stdio, http or sse")
	c.Flags().StringArrayVarP(&envs, "env", "e", nil, "environment variable for a stdio server, KEY=value (repeatable)")
	c.Flags().StringArrayVarP(&headers, "header", "H", nil, `header for an http or sse server, "Name: value" (repeatable)`)
	c.Flags().StringVar(&clientID, "client-id", "", "OAuth client id registered for ouro with an http server's authorization server (see ouro mcp login)")
	c.Flags().IntVar(&callbackPort, "callback-port", 0, "fixed loopback port of the OAuth redirect (the one the client id was registered with)")
	return c
}

func orStdio(t string) string {
	if t == "" {
		return mcpconf.TypeStdio
	}
	return t
}

func newMCPAddJSONCmd() *cobra.Command {
	var scope string
	c := &cobra.Command{
		Use:   "add-json NAME JSON",
		Short: `Add an MCP server from its JSON, e.g. '{"type":"http","url":"https://x/mcp"}'`,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			cwd, home, _, err := mcpPlaces()
			if err != nil {
				return err
			}
			var e mcpconf.Entry
			dec := json.NewDecoder(strings.NewReader(args[1]))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&e); err != nil {
				return fmt.Errorf("the server's JSON is not valid: %v", err)
			}
			if err := mcpconf.Add(home, cwd, scope, args[0], e); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Added %s MCP server %s to %s config\n", orStdio(e.Type), args[0], scope)
			return nil
		},
	}
	scopeFlag(c, &scope)
	return c
}

func newMCPRemoveCmd() *cobra.Command {
	var scope string
	c := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove an MCP server",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cwd, home, _, err := mcpPlaces()
			if err != nil {
				return err
			}
			file, err := mcpconf.Remove(home, cwd, scope, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Removed MCP server %s (%s)\n", args[0], file)
			return nil
		},
	}
	c.Flags().StringVarP(&scope, "scope", "s", "", "local, project or user (default: wherever it is defined)")
	return c
}

func newMCPApproveCmd() *cobra.Command {
	var all, deny bool
	c := &cobra.Command{
		Use:   "approve [NAME...]",
		Short: "Approve (or with --deny, disable) servers of this project's .mcp.json or of plugins",
		Long: `A project's .mcp.json servers run commands on your machine, so ouro starts them only
once you approve them. The choice is kept in ~/.ouro.json for this project folder.
--all approves every server .mcp.json defines now; one added later needs approving again.
An approval holds for the server as .mcp.json defines it now (command, arguments, the
names of its environment variables, URL): if that changes, it is asked about again.
A plugin's server (plugin:<plugin>:<server>) is approved the same way, for its definition
in that plugin folder.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, cwd, home, err := loadMCP()
			if err != nil {
				return err
			}
			var project []string
			byName := map[string]mcpconf.Server{}
			for _, s := range cfg.Servers {
				if s.Scope == mcpconf.ScopeProject || s.Scope == mcpconf.ScopePlugin {
					project = append(project, s.Name)
					byName[s.Name] = s
				}
			}
			sort.Strings(project)
			names := args
			if all {
				names = project
			}
			if len(names) == 0 {
				return fmt.Errorf("name the servers to approve (this project's .mcp.json and plugins define: %s), or pass --all", noneIfEmpty(project))
			}
			var servers []mcpconf.Server
			for _, n := range names {
				if !slices.Contains(project, n) {
					return fmt.Errorf("%q is not a server of this project's .mcp.json or of a plugin (there are: %s)", n, noneIfEmpty(project))
				}
				servers = append(servers, byName[n])
			}
			// The approval is bound to the configuration .mcp.json holds now.
			if err := mcpconf.Approve(home, cwd, servers, !deny); err != nil {
				return err
			}
			verb := "Approved"
			if deny {
				verb = "Disabled"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s for %s\n", verb, strings.Join(names, ", "), cwd)
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "every server the project's .mcp.json defines now")
	c.Flags().BoolVar(&deny, "deny", false, "disable the servers instead")
	return c
}

func noneIfEmpty(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}
