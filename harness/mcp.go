package harness

import (
	"context"

	"github.com/ouroagent/ouro/internal/envtune"
	"github.com/ouroagent/ouro/mcpclient"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/plugin"
	"github.com/ouroagent/ouro/tool"
)

// MCP says which MCP servers the session uses besides those of its configuration files.
type MCP = mcpclient.SessionOptions

// MCPAuthDir is where remote MCP servers' OAuth tokens are kept, under ouro's home.
func MCPAuthDir(home string) string { return mcpclient.AuthDir(home) }

// mcpConfig is what the MCP mechanism is given: the session's final registry, which the
// servers' tools join under the same hiding and --tools list as the built-in ones.
// The plugins' servers join as plugin:<plugin>:<server>, each approved like a project's.
func mcpConfig(opts Options, d dirs, reg *tool.Registry, hidden func(string) bool, plugins []plugin.Plugin, tune envtune.Tuning) mcpclient.JoinConfig {
	return mcpclient.JoinConfig{Options: opts.MCP, UserConfig: d.config, Home: d.home, Version: opts.Version,
		Supervise: opts.Access.SandboxLauncher, Registry: reg, Hidden: hidden, Only: opts.Access.Tools,
		Plugins:      plugin.MCPServers(plugins, func(p plugin.Plugin) string { return plugin.DataDir(d.home, p.Name) }),
		StartTimeout: tune.MCPTimeout, MaxResultChars: mcpResultChars(tune.MaxMCPOutputTokens)}
}

// mcpResultChars is MAX_MCP_OUTPUT_TOKENS in characters, at the four characters a token
// ouro's estimates use everywhere; 0 keeps the registry's budget.
func mcpResultChars(tokens int) int { return 4 * tokens }

// mcp is the session's MCP servers; nil when none is configured.
func (s *Session) mcp() *mcpclient.Session {
	x, _ := mechanism.Handle[*mcpclient.Session](s.parts)
	return x
}

// MCP is the session's MCP servers; nil when none is configured.
func (s *Session) MCP() *mcpclient.Manager {
	if x := s.mcp(); x != nil {
		return x.Manager()
	}
	return nil
}

// WaitMCP waits, as the first model request would, for the servers still starting: a
// headless run calls it before reporting their status.
func (s *Session) WaitMCP(ctx context.Context) {
	if x := s.mcp(); x != nil {
		x.WaitStarted(ctx)
	}
}
