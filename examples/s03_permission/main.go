// s03: the gate before every side effect. The loop is s02's; what is new is a Gate it
// asks before each call runs. The gate checks the call against a policy built from
// settings (allow, deny and ask rules, plus a mode), asks an approver when a rule says
// ask, and writes every decision, with what made it, to an audit log. A compound line is
// split into its simple commands and refused when any one of them is.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s03_permission "run the tests, clean up, push"
//
// Without a key a scripted model runs the tests (allowed by a rule), removes build/
// (denied by a rule), pushes (an ask rule, and nobody is there to approve: denied), and
// tries `ls && rm -rf build` (denied: one of its commands is).
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

const rules = `{"permissions": {
	"allow": ["Bash(go test *)"],
	"deny":  ["Bash(rm *)"],
	"ask":   ["Bash(git push *)"]
}}`

func main() {
	// A throwaway project: a module with one test, and a build/ folder worth keeping.
	dir, err := os.MkdirTemp("", "ouro-s03-")
	check(err)
	defer os.RemoveAll(dir)
	check(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/s03\n"), 0o644))
	check(os.WriteFile(filepath.Join(dir, "s03_test.go"), []byte("package s03\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n"), 0o644))
	check(os.MkdirAll(filepath.Join(dir, "build"), 0o755))

	// The rules come inline, as --settings takes them; the homes point at the throwaway
	// folder so no settings file of yours joins in.
	set, err := settings.Load(settings.LoadOptions{UserHome: dir, OuroHome: dir, ProjectDir: dir, Settings: rules})
	check(err)
	ws, err := workspace.New(dir)
	check(err)
	policy, err := permission.NewPolicy(permission.PolicyConfig{Settings: set, Workspace: ws})
	check(err)
	audit, err := permission.OpenAudit(filepath.Join(dir, "audit.jsonl"))
	check(err)
	// Headless: what a rule (or the mode) would ask about is refused, with the reason.
	gate := permission.NewGate(policy, permission.Headless{}, nil, audit)

	bash := func(cmd string) scripted.ToolCall {
		return scripted.ToolCall{Name: "Bash", Input: []byte(fmt.Sprintf(`{"command":%q}`, cmd))}
	}
	var model llm.Provider = scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{bash("go test ./...")}},
		{ToolCalls: []scripted.ToolCall{bash("rm -rf build"), bash("git push origin main"), bash("ls && rm -rf build")}},
		{Text: "(scripted) Tests pass; removing build/ and pushing were refused."},
	}})
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}
	a, err := agent.New(agent.Config{
		Provider: model, Model: llm.DefaultModel,
		Tools: tool.NewRegistry(tools.NewBash(tools.BashConfig{Dir: dir})),
		Gates: []agent.Gate{gate},
		Observers: []agent.Observer{func(e agent.Event) {
			if e.Type == agent.EventToolEnd {
				fmt.Printf("── %s  (error=%v)\n%s\n\n", permission.SummarizeInput(*e.Call), e.Result.IsError, strings.TrimSpace(e.Result.ResultText()))
			}
		}},
	})
	check(err)
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "Run the tests, delete the build folder, then push."
	}
	out := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock(prompt))
	fmt.Printf("%s\n[%s after %d turns]\n\n", out.Result, out.Status, out.Turns)

	// The audit log holds every decision and what made it.
	check(audit.Close())
	recs, err := permission.ReadAudit(audit.Path())
	check(err)
	fmt.Println("The gate's decisions, from the audit log:")
	for _, r := range recs {
		if r.Kind == permission.AuditDecision {
			fmt.Printf("  %-5s %-22s by %s\n        %s\n", r.Decision, r.Input, r.Source, r.Reason)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "build")); err == nil {
		fmt.Println("build/ is still there.")
	}
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
