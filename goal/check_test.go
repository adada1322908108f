package goal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// shellFor is a Shell over a policy in default mode with the given deny rules, without
// an OS sandbox.
func shellFor(t *testing.T, deny ...string) (Shell, *workspace.Workspace, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rules []settings.Rule
	for _, d := range deny {
		rules = append(rules, settings.Rule{Text: d, Source: "test", Root: dir})
	}
	pol, err := permission.NewPolicy(permission.PolicyConfig{Workspace: ws, Home: t.TempDir(), ProjectDir: dir,
		Settings: &settings.Settings{Permissions: settings.Permissions{Deny: rules, DefaultMode: settings.Sourced[string]{Value: "default"}}}})
	if err != nil {
		t.Fatal(err)
	}
	audit, err := permission.OpenAudit(filepath.Join(t.TempDir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { audit.Close() })
	return Shell{Policy: pol, Audit: audit}, ws, dir
}

// The check goes through the gate: a deny rule refuses it with the rule, and the user's
// own command, which the default mode would ask about (it writes), runs.
func TestCheckRunsThroughTheGate(t *testing.T) {
	sh, ws, dir := shellFor(t, "Bash(curl *)")
	check := NewCheck(sh, ws, dir)
	if r := check(context.Background(), "curl http://example.com", DefaultCheckTimeout); !r.Refused || !strings.Contains(r.Output, "Bash(curl *)") {
		t.Fatalf("a denied check ran: %+v", r)
	}
	r := check(context.Background(), "echo ok > inside.txt && cat inside.txt", DefaultCheckTimeout)
	if !r.Passed || !strings.Contains(r.Output, "ok") {
		t.Fatalf("the user's own check was not run: %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "inside.txt")); err != nil || string(b) != "ok\n" {
		t.Fatalf("the check did not run in the working directory: %q %v", b, err)
	}
	if r := check(context.Background(), "exit 3", DefaultCheckTimeout); r.Passed || r.Refused {
		t.Fatalf("a failing check passed: %+v", r)
	}
}

// The user's command approves what its tool describes as that one command, and nothing
// else: another command, or a call that describes no command run.
func TestUserCommandApprovesOnlyItsCommand(t *testing.T) {
	bash := tools.NewBash(tools.BashConfig{Dir: t.TempDir()})
	u := userCommand{command: "make test", tool: bash}
	ask := func(command string) permission.Choice {
		in, _ := json.Marshal(map[string]any{"command": command})
		a, err := u.Approve(context.Background(), permission.Prompt{Call: tool.Call{Name: bash.Spec().Name, Input: in}, Summary: command})
		if err != nil {
			t.Fatal(err)
		}
		return a.Choice
	}
	if c := ask("make test"); c != permission.Once {
		t.Errorf("the user's own command: %v, want Once", c)
	}
	for _, other := range []string{"make test; rm -rf /", "make", "rm -rf /"} {
		if c := ask(other); c != permission.No {
			t.Errorf("%q was approved (%v)", other, c)
		}
	}
	// A call whose input describes no command (a file write, say) is no command of the
	// user's whatever it is called.
	u.tool = describer(tool.DescribeFile(tool.ActWrite, "file_path"))
	in, _ := json.Marshal(map[string]any{"file_path": "/tmp/x", "content": "make test"})
	if a, _ := u.Approve(context.Background(), permission.Prompt{Call: tool.Call{Name: bash.Spec().Name, Input: in}}); a.Choice != permission.No {
		t.Errorf("a write was approved as the user's command: %v", a.Choice)
	}
}

// A bare deny of the rule name every command meets hides the check's shell; a narrower
// Bash rule, or a deny of another tool, does not.
func TestShellHiddenByADenyOfCommands(t *testing.T) {
	for _, c := range []struct {
		deny   []string
		hidden bool
	}{
		{[]string{"Bash"}, true},
		{[]string{"Bash(curl *)"}, false},
		{[]string{"Write"}, false},
		{nil, false},
	} {
		sh, _, _ := shellFor(t, c.deny...)
		if got := sh.Hidden(); got != c.hidden {
			t.Errorf("deny %q: hidden %v, want %v", c.deny, got, c.hidden)
		}
	}
	if (Shell{}).Hidden() {
		t.Error("a shell without a policy is hidden")
	}
}

type describer func(json.RawMessage) ([]tool.Action, error)

func (d describer) Describe(in json.RawMessage) ([]tool.Action, error) { return d(in) }
