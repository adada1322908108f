package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

// setupSandbox builds the OS sandbox from the settings: the policy, the filtering proxy
// when sandbox.network.allowedDomains asks for one, sandbox.excludedCommands for Bash,
// and sandbox.autoAllowBashIfSandboxed for the gate.
func (g *guard) setupSandbox(e guardEnv, launcher bool, home string) error {
	sb := e.settings.Sandbox
	if sb.Enabled != nil && !sb.Enabled.Value {
		if sb.Network.Proxied() {
			fmt.Fprintf(e.warn, "ouro: sandbox: sandbox.network.allowedDomains has no effect: %s turns the sandbox off (sandbox.enabled: false), so Bash commands reach the network directly\n", sb.Enabled.Source)
		}
		return nil
	}
	if !launcher {
		if sb.Enabled != nil {
			fmt.Fprintln(e.warn, "ouro: sandbox: this program does not run the sandbox launcher, so Bash runs under permission rules only")
		}
		return nil
	}
	pol := sandbox.FromSettings(sb, e.ws.Roots(), home, g.tmpDir)
	ok, warnings := sandbox.Availability(pol)
	if !ok {
		// No sandbox can be had. Commands that would run in it are refused (Bash says
		// why), unless the person's own settings let them run without it: never
		// unsandboxed by surprise.
		why := strings.Join(warnings, "; ")
		refuse := sandbox.RefuseWithoutSandbox
		if sb.FailIfUnavailable != nil {
			refuse = sb.FailIfUnavailable.Value
		}
		if !refuse {
			because := "the default on this system"
			if sb.FailIfUnavailable != nil {
				because = sb.FailIfUnavailable.Source + " sets sandbox.failIfUnavailable: false"
			}
			fmt.Fprintf(e.warn, "ouro: sandbox: %s; Bash runs without the sandbox, under the permission rules only (%s)\n", why, because)
			return nil
		}
		fmt.Fprintf(e.warn, "ouro: sandbox: %s. %s\n", why, sandbox.RefusedAdvice)
		warnings = nil
	}
	for _, w := range warnings {
		fmt.Fprintf(e.warn, "ouro: sandbox: %s\n", w)
	}
	if ok && len(pol.DenyRead) > 0 && !sandbox.DeniesReads() {
		fmt.Fprintf(e.warn, "ouro: sandbox: sandbox.filesystem.denyRead is not enforced by %s, which cannot refuse reads inside readable folders: sandboxed commands can still read %s\n",
			sandbox.Mechanism(), strings.Join(pol.DenyRead, ", "))
	}
	if ok && pol.Network.Proxied() {
		px, warnings, err := sandbox.StartProxy(sandbox.ProxyConfig{Allowed: sb.Network.AllowedDomains,
			Denied: sb.Network.DeniedDomains, Sources: sb.Network.DomainSources})
		for _, w := range warnings {
			fmt.Fprintf(e.warn, "ouro: sandbox: %s\n", w)
		}
		if err != nil {
			return err // never run commands unfiltered when the user asked for a filter
		}
		g.proxy = px
		pol = pol.WithProxy(px)
	}
	// What the mode leaves out, where the first command finds it (Availability said it
	// already where the verdict was in the cache).
	warn := e.warn
	pol = pol.WithNotice(func(w string) { fmt.Fprintf(warn, "ouro: sandbox: %s\n", w) })
	g.sandbox = &pol

	// Claude Code's allowUnsandboxedCommands (default true): the model may ask to run a
	// command outside the sandbox, and a person always decides (see permission.Gate).
	g.unsandboxedOK = sb.AllowUnsandboxedCommands == nil || *sb.AllowUnsandboxedCommands
	if g.unsandboxedOK {
		g.gate.LeavesSandbox = func(c tool.Call) bool { return bashInputOf(c).DangerouslyDisableSandbox }
	}
	rules := excludedRules(sb.ExcludedCommands, e.warn)
	for _, c := range sb.ExcludedCommands {
		if file, ok := sb.ExcludedByProject[c]; ok {
			// Claude Code merges a project's excludedCommands too; the user should know
			// which commands a repository takes out of the sandbox.
			fmt.Fprintf(e.warn, "ouro: sandbox: %s runs %q outside the sandbox (sandbox.excludedCommands); such commands always go through the permission rules, never autoAllowBashIfSandboxed\n", file, c)
		}
	}
	if len(rules) > 0 {
		cwd := e.dirs.cwd
		g.excluded = func(command string) bool { return excludedCommand(rules, command, cwd, home) }
	}
	if !sb.AutoAllow() {
		return nil
	}
	if !pol.NetworkRestricted() {
		// Claude Code's sandbox confines the network whenever it is on; ouro's leaves it
		// open unless told otherwise, and reads are never confined. Auto-allowing then
		// would let any command send any file anywhere without asking.
		fmt.Fprintln(e.warn, "ouro: sandbox: autoAllowBashIfSandboxed is not applied: sandboxed commands can reach the whole network, so an auto-allowed command could send any file it reads anywhere. Set sandbox.network.allowedDomains (or network.allow: false) to confine the network; until then Bash calls go through the permission rules.")
		return nil
	}
	g.gate.Sandboxed = func(c tool.Call) bool {
		in := bashInputOf(c)
		return in.ok && !(in.DangerouslyDisableSandbox && g.unsandboxedOK) && (g.excluded == nil || !g.excluded(in.Command))
	}
	return nil
}

// bashInput is what the sandbox decisions read of a Bash call: the same fields the Bash
// tool runs by (tools.Bash decides the same way: excluded, or leaving on request).
type bashInput struct {
	Command                   string `json:"command"`
	DangerouslyDisableSandbox bool   `json:"dangerouslyDisableSandbox"`
	ok                        bool
}

func bashInputOf(c tool.Call) bashInput {
	var in bashInput
	in.ok = json.Unmarshal(c.Input, &in) == nil
	return in
}

// excludedRules reads sandbox.excludedCommands as Bash rule patterns. A bare name
// ("docker") stands for the command with any arguments ("docker *"), as users of
// Claude Code write it.
func excludedRules(patterns []string, warn io.Writer) []permission.Rule {
	var out []permission.Rule
	for _, p := range patterns {
		text := strings.TrimSpace(p)
		if text == "" {
			continue
		}
		if !strings.ContainsAny(text, " *:") {
			text += " *"
		}
		r, err := permission.ParseRule(settings.Rule{Text: tool.ActExec.RuleName() + "(" + text + ")"})
		if err != nil {
			fmt.Fprintf(warn, "ouro: sandbox: excludedCommands entry %q is ignored: %v\n", p, err)
			continue
		}
		out = append(out, r)
	}
	return out
}

// excludedCommand reports whether any simple command of the line matches an excluded
// pattern: then the whole line runs outside the sandbox, through the permission rules.
func excludedCommand(rules []permission.Rule, command, cwd, home string) bool {
	input, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		return false
	}
	call := tool.Call{Name: tool.ActExec.RuleName(), Input: input} // a command, as Bash(...) rules match it
	for _, r := range rules {
		if r.MatchesCall(call, cwd, home) {
			return true
		}
	}
	return false
}
