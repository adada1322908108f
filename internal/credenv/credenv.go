// Package credenv keeps ouro's own credentials out of what it starts for the model: the
// shell of Bash and background jobs, hooks, MCP servers and test commands. A key in a
// tool's environment is one `env`, `printenv`, `echo $X` or `cat /proc/self/environ`
// away from the model, and from there from anything the model writes.
package credenv

import (
	"slices"
	"strings"
)

// Names are the variables ouro reads its model credentials from, and the headers
// variables that may carry one. AWS_BEARER_TOKEN_BEDROCK is only ever a key to Claude on
// Bedrock; the general AWS credentials (AWS_ACCESS_KEY_ID, a profile) stay, as the
// person's tools (the aws command, terraform) need them and Claude Code passes them too.
var Names = []string{
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS", "CLAUDE_CODE_OAUTH_TOKEN",
	"OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "OPENAI_CUSTOM_HEADERS",
	"AWS_BEARER_TOKEN_BEDROCK",
}

// IsCredential reports whether name is one of Names.
func IsCredential(name string) bool { return slices.Contains(Names, name) }

// Strip returns env without ouro's credentials; keep names the ones a configuration
// asked for by name (an MCP server's own "env", an http hook's allowedEnvVars). The
// input is not changed.
func Strip(env []string, keep ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if IsCredential(name) && !slices.Contains(keep, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}
