package main

import (
	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/acp"
)

// newACPCmd is `ouro acp`: ouro as an Agent Client Protocol agent on standard input and
// output, for editors (Zed, JetBrains IDEs, Neovim; docs/editors.md).
func newACPCmd() *cobra.Command {
	f := &runFlags{}
	c := &cobra.Command{
		Use:   "acp",
		Short: "Serve ouro to an editor over the Agent Client Protocol (stdio)",
		Long: `ouro acp speaks the Agent Client Protocol (ACP) on standard input and output: an editor
starts it, opens sessions in its project (session/new, session/load resumes one), sends
prompts and shows what ouro does. Calls that need approval are asked about in the editor;
its MCP servers join your own. See docs/editors.md for Zed, JetBrains IDEs and Neovim.

The flags apply to every session the editor opens.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.skipPerms {
				f.mode = "bypassPermissions"
			}
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			return acp.Serve(ctx, acp.Config{
				Options: f.options,
				Expand:  slashBlocks,
				Version: version,
				Warn:    cmd.ErrOrStderr(),
			}, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.model, "model", "", "model: a Claude model name, openai:NAME or scripted:FILE (default $OURO_MODEL)")
	fl.StringVar(&f.fallback, "fallback-model", "", "Claude model to switch to when the main one stays overloaded")
	fl.StringVar(&f.settings, "settings", "", "extra settings: a JSON file or an inline JSON object")
	fl.StringArrayVar(&f.allowed, "allowedTools", nil, `rules to allow without asking, e.g. "Bash(go test *)" Edit`)
	fl.StringArrayVar(&f.disallowed, "disallowedTools", nil, `rules to deny, e.g. "Bash(git push *)"; a bare tool name removes the tool`)
	fl.StringVar(&f.mode, "permission-mode", "", "the mode sessions start in: default, acceptEdits, plan, dontAsk or bypassPermissions")
	fl.BoolVar(&f.skipPerms, "dangerously-skip-permissions", false, "same as --permission-mode bypassPermissions")
	fl.StringArrayVar(&f.addDirs, "add-dir", nil, "another directory the tools may work in (repeatable)")
	fl.StringArrayVar(&f.mcpConfig, "mcp-config", nil, `MCP servers to load besides the editor's: a JSON file or an inline {"mcpServers":{...}}`)
	fl.StringArrayVar(&f.pluginDirs, "plugin-dir", nil, "load a Claude Code plugin from this folder (repeatable)")
	fl.IntVar(&f.window, "context-window", envInt("OURO_CONTEXT_WINDOW"), "the model's context window in tokens, for models the built-in table does not know")
	return c
}
