package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/sdkproto"
	"github.com/ouroagent/ouro/ui"
)

// sdkFlags are the flags the Claude Agent SDKs pass to their CLI that ouro had no use
// for until they drove it (matched against claude-agent-sdk-python 0.2.143,
// _internal/transport/subprocess_cli.py _build_command). Those with a meaning in ouro
// take it; the others are accepted with a one-line warning, so an SDK program runs
// unchanged. Only these names are tolerated: a misspelt flag of ouro's own stays an
// error.
type sdkFlags struct {
	promptTool  string
	systemFile  string
	agents      string
	fork        bool
	ignoredStr  map[string]*string
	ignoredBool map[string]*bool
}

// sdkIgnored are the SDK's flags ouro accepts without an equivalent, with what it does
// instead; the bool says whether the flag takes a value.
var sdkIgnored = []struct {
	name, why string
	value     bool
}{
	{"setting-sources", "ouro reads every settings source (user, project, local)", true},
	{"betas", "ouro sends no beta headers of the caller's choice", true},
	{"task-budget", "ouro bounds runs with --max-turns, --max-budget-usd and --max-duration", true},
	{"resume-session-at", "ouro resumes the whole session", true},
	{"resume-drops-turn", "ouro resumes the whole session", true},
	{"include-hook-events", "ouro writes system/hook_response lines only for what hooks show the user", false},
	{"session-mirror", "ouro keeps transcripts in its own session store only", false},
	// The TypeScript SDK's (sdk.mjs ProcessTransport) besides the Python SDK's.
	{"agent", "ouro's main thread is its own agent; named agents run as subagents (Task)", true},
	{"debug-file", "ouro writes no debug log; --verbose shows its notices on stderr", true},
	{"debug", "ouro writes no debug log; --verbose shows its notices on stderr", false},
	{"allow-dangerously-skip-permissions", "set_permission_mode may switch to bypassPermissions unless the settings disable it", false},
	{"plugin-dir-no-mcp", "use --plugin-dir", true},
	{"no-session-persistence", "ouro always records the session (so it can be resumed)", false},
	{"managed-settings", "ouro reads managed settings from their usual place only", true},
	// The TypeScript SDK (0.3.x) sends MCP servers in initialize and says so with this
	// flag; ouro waits for initialize in stream-json input anyway.
	{"await-initialize", "", false},
}

func (s *sdkFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&s.promptTool, "permission-prompt-tool", "", `"stdio": ask the Agent SDK driving ouro (its canUseTool) about calls that need approval`)
	fl.StringVar(&s.systemFile, "system-prompt-file", "", "replace the system prompt with this file's text")
	fl.StringVar(&s.agents, "agents", "", `agent types as JSON: {"name": {"description": ..., "prompt": ..., "tools": [...], "model": ...}}`)
	fl.BoolVar(&s.fork, "fork-session", false, "with --resume or --continue: continue in a new session, leaving the resumed one as it was")
	s.ignoredStr, s.ignoredBool = map[string]*string{}, map[string]*bool{}
	for _, ig := range sdkIgnored {
		if ig.value {
			s.ignoredStr[ig.name] = fl.String(ig.name, "", "accepted for the Claude Agent SDK; "+ig.why)
		} else {
			s.ignoredBool[ig.name] = fl.Bool(ig.name, false, "accepted for the Claude Agent SDK; "+ig.why)
		}
		_ = fl.MarkHidden(ig.name)
	}
}

// apply gives the SDK's flags their meaning in f, warns once for each one ouro has no
// equivalent for, and makes `--input-format stream-json --output-format stream-json`
// headless without -p (the SDKs never pass -p; Claude Code is headless whenever its
// output is not a terminal).
func (s *sdkFlags) apply(cmd *cobra.Command, f *runFlags) error {
	errOut := cmd.ErrOrStderr()
	for _, ig := range sdkIgnored {
		if cmd.Flags().Changed(ig.name) && ig.why != "" {
			fmt.Fprintf(errOut, "ouro: warning: --%s is ignored: %s\n", ig.name, ig.why)
		}
	}
	if f.inputFormat == inputStreamJSON && f.outputFormat == ui.FormatStreamJSON && !f.print {
		f.print = true
	}
	switch s.promptTool {
	case "", "stdio":
	default:
		fmt.Fprintf(errOut, "ouro: warning: --permission-prompt-tool %s is ignored: ouro asks only the Agent SDK (stdio); calls that need approval are refused\n", s.promptTool)
	}
	if s.promptTool == "stdio" && f.inputFormat != inputStreamJSON {
		return fmt.Errorf("--permission-prompt-tool stdio asks the Agent SDK over standard input: it needs --input-format stream-json and --output-format stream-json")
	}
	// tools=[] arrives as --tools "": no built-in tool. ouro cannot offer none yet, and
	// offering all instead would grant what the caller withheld.
	if cmd.Flags().Changed("tools") && len(splitRules(f.tools)) == 0 {
		return fmt.Errorf("--tools \"\" (no built-in tools; the Agent SDK's tools=[]) is not supported by ouro: name the tools to offer (--tools Read,Grep), or take tools away with --disallowedTools")
	}
	// The SDK's tools preset ("claude_code") arrives as --tools default: every tool, even
	// to a model with a small context window.
	if len(f.tools) == 1 && strings.TrimSpace(f.tools[0]) == "default" {
		f.tools, f.allTools = nil, true
	}
	if s.systemFile != "" {
		if cmd.Flags().Changed("system-prompt") && f.system != "" {
			return fmt.Errorf("--system-prompt and --system-prompt-file both replace the system prompt: pick one")
		}
		data, err := regfile.Read(s.systemFile, regfile.MaxConfig)
		if err != nil {
			return fmt.Errorf("--system-prompt-file: %w", err)
		}
		f.system = string(data)
	}
	if s.fork && f.resume == "" && !f.cont {
		return fmt.Errorf("--fork-session forks the session being resumed: use it with --resume or --continue")
	}
	if s.agents != "" {
		if _, err := sdkproto.ParseAgents([]byte(s.agents), "--agents"); err != nil {
			return err
		}
	}
	return nil
}

// sdkTimeout reads OURO_SDK_TIMEOUT (a duration): how long ouro waits for the SDK to
// answer one of its requests; 0 means sdkproto.DefaultTimeout.
func sdkTimeout(errOut io.Writer) time.Duration {
	v := os.Getenv("OURO_SDK_TIMEOUT")
	if v == "" {
		return 0
	}
	t, err := time.ParseDuration(v)
	if err != nil || t <= 0 {
		fmt.Fprintf(errOut, "ouro: warning: OURO_SDK_TIMEOUT=%q is not a positive duration (e.g. 30s); using %s\n", v, sdkproto.DefaultTimeout)
		return 0
	}
	return t
}
