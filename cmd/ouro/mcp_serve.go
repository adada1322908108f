package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mcpserve"
)

// noModel is the provider of a served session, which never calls a model.
type noModel struct{}

func (noModel) Name() string { return "none" }
func (noModel) Complete(context.Context, *llm.Request, llm.StreamFunc) (*llm.Response, error) {
	return nil, errors.New("ouro mcp serve makes no model calls")
}

// serveInstructions tell the client what the served tools are.
func serveInstructions() string {
	return "These are ouro's tools (" + strings.Join(harness.ServedToolNames, ", ") + ") working in one directory under ouro's permission rules and sandbox. A call the rules do not allow is refused with the reason; Edit and Write need a Read of the file first."
}

func newMCPServeCmd() *cobra.Command {
	var settings, mode, httpAddr string
	var allowed, disallowed, addDirs []string
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve ouro's tools (Read, Grep, Glob, Edit, Bash …) to another agent over MCP on stdio",
		Long: `Serve ouro's own tools over MCP (stdio), for another agent to use safely: every call goes
through ouro's schema checks, permission rules (settings files and the flags below),
hooks, sandbox and output budget. Nobody is there to approve, so a call that would ask is
refused with the reason; allow what the client needs with --allowedTools or the settings.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := harness.Options{
				Model: harness.ModelOptions{Provider: noModel{}, Name: "none"},
				Dirs:  harness.Dirs{Add: addDirs},
				Access: harness.Access{Settings: settings, Allow: splitRules(allowed), Deny: splitRules(disallowed),
					Mode: mode, SandboxLauncher: true},
				MCP:     harness.MCP{Strict: true}, // a served session uses no MCP servers itself
				UI:      harness.UI{Warn: cmd.ErrOrStderr()},
				Version: version,
			}
			sess, err := harness.Open(opts)
			if err != nil {
				return err
			}
			defer sess.Close()
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			srv := mcpserve.Server(sess.ServedTools(), version, serveInstructions())
			if httpAddr != "" {
				return mcpserve.ServeHTTP(ctx, srv, httpAddr, func(url string) {
					fmt.Fprintf(cmd.ErrOrStderr(), "ouro mcp serve: listening on %s\n", url)
				})
			}
			if err := mcpserve.ServeStdio(ctx, srv); err != nil && ctx.Err() == nil {
				return fmt.Errorf("mcp serve: %w", err)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&settings, "settings", "", "extra settings: a JSON file or an inline JSON object")
	fl.StringArrayVar(&allowed, "allowedTools", nil, `rules to allow, e.g. "Bash(go test *)" Edit`)
	fl.StringArrayVar(&disallowed, "disallowedTools", nil, `rules to deny; a bare tool name removes the tool`)
	fl.StringVar(&mode, "permission-mode", "", "default, acceptEdits, plan, dontAsk or bypassPermissions")
	fl.StringVar(&httpAddr, "http", "", "serve over streamable HTTP on this loopback address (e.g. 127.0.0.1:8765) instead of stdio")
	fl.StringArrayVar(&addDirs, "add-dir", nil, "another directory the tools may work in (repeatable)")
	return c
}
