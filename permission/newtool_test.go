package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// frob is a tool the policy has never heard of: it writes the file its "target" names
// and runs its "then" line. Nothing in this package names it.
type frob struct{}

func (frob) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Frobnicate", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (frob) ReadOnly() bool { return false }
func (frob) Run(context.Context, *tool.Exec) (tool.Result, error) {
	return tool.Text("frobbed"), nil
}
func (frob) Describe(input json.RawMessage) ([]tool.Action, error) {
	var in struct{ Target, Then string }
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, err
	}
	acts := []tool.Action{{Kind: tool.ActWrite, Paths: []string{in.Target}}}
	if in.Then != "" {
		acts = append(acts, tool.Action{Kind: tool.ActExec, Command: in.Then})
	}
	return acts, nil
}

// A new tool that describes a write gets what every write gets, with no edit here: Edit
// rules (allow, ask, deny, and Read denies covering writes), protected paths, plan mode,
// acceptEdits inside the workspace only, and the bounds of an isolated agent's workspace.
// One that also runs a line gets the hard-deny set and Bash rules on it.
func TestNewToolDescribingAWrite(t *testing.T) {
	e := newEnv(t)
	reg := tool.NewRegistry(frob{})
	in := func(target string) string {
		b, _ := json.Marshal(map[string]string{"target": target})
		return string(b)
	}
	then := func(target, line string) string {
		b, _ := json.Marshal(map[string]string{"target": target, "then": line})
		return string(b)
	}
	withTools := func(p *Policy) *Policy { p.SetTools(reg); return p }

	p := withTools(e.policy(t, "", rules{allow: []string{"Edit(src/**)", "Bash(go test *)"}, ask: []string{"Edit(docs/**)"},
		deny: []string{"Edit(secrets/**)", "Read(./.env)"}}))
	runPolicyCases(t, e, p, []policyCase{
		{"allowed by an Edit rule", "Frobnicate", in("src/a.go"), Allow, "Edit(src/**)", nil},
		{"asked by an Edit ask rule", "Frobnicate", in("docs/x.md"), Ask, "Edit(docs/**)", nil},
		{"denied by an Edit deny rule", "Frobnicate", in("{P}/secrets/k"), Deny, "Edit(secrets/**)", nil},
		{"a Read deny covers the write", "Frobnicate", in(".env"), Deny, "Read(./.env)", nil},
		{"no rule: asks, suggesting an Edit rule", "Frobnicate", in("a.go"), Ask, "no matching rule", []string{"Edit(./a.go)"}},
		{"protected path", "Frobnicate", in("{P}/.git/config"), Ask, "protected path", []string{""}},
		{"outside the workspace", "Frobnicate", in("{O}/x"), Ask, "no matching rule", []string{"Edit(/" + e.out + "/x)"}},
		{"no path", "Frobnicate", `{}`, Deny, "invalid input", nil},
		{"its line is judged as a command", "Frobnicate", then("src/a.go", "go test ./..."), Allow, "", nil},
		{"its line meets the hard-deny set", "Frobnicate", then("src/a.go", "rm -rf /"), Deny, "hard deny", nil},
		{"the stricter action decides", "Frobnicate", then("src/a.go", "make build"), Ask, "", []string{"Bash(make build)"}},
	})
	// Only a call that does nothing but run lines is one the sandbox confines (Runs): the
	// gate's sandbox auto-allow must not let this tool's own write through.
	if v := p.Check(context.Background(), e.call("Frobnicate", then("a.go", "ls"))); v.Runs || v.Behavior != Ask {
		t.Errorf("a call writing a file and running a line = %+v, want an ask not marked Runs", v)
	}
	if v := p.Check(context.Background(), e.call("Bash", bash("make build"))); !v.Runs {
		t.Errorf("a shell line is not marked Runs: %+v", v)
	}

	plan := withTools(e.policy(t, "plan", rules{allow: []string{"Edit(src/**)"}}))
	runPolicyCases(t, e, plan, []policyCase{
		{"plan mode writes nothing", "Frobnicate", in("src/a.go"), Deny, "mode plan", nil},
	})
	accept := withTools(e.policy(t, "acceptEdits", rules{}))
	runPolicyCases(t, e, accept, []policyCase{
		{"acceptEdits inside", "Frobnicate", in("src/a.go"), Allow, "mode acceptEdits", nil},
		{"acceptEdits outside asks", "Frobnicate", in("{O}/a.go"), Ask, "", nil},
		{"acceptEdits still protects", "Frobnicate", in("{P}/.ouro/settings.json"), Ask, "protected path", nil},
	})
	bypass := withTools(e.policy(t, "bypassPermissions", rules{}))
	runPolicyCases(t, e, bypass, []policyCase{
		{"bypass allows", "Frobnicate", in("{O}/a.go"), Allow, "mode bypassPermissions", nil},
	})
	wt := filepath.Join(e.proj, ".ouro", "worktrees", "a")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	cws, err := bypass.ws.Clone(wt)
	if err != nil {
		t.Fatal(err)
	}
	confined := bypass.WithWorkspace(cws)
	if v := confined.Check(context.Background(), e.call("Frobnicate", in("{P}/a.go"))); v.Behavior != Ask || v.Source != "outside the workspace" {
		t.Errorf("an isolated agent's write outside its workspace = %+v, want an ask", v)
	}

	// Without the registry the policy knows nothing of Frobnicate: it asks, in every mode
	// but plan, which refuses it.
	if v := e.policy(t, "acceptEdits", rules{}).Check(context.Background(), e.call("Frobnicate", in("src/a.go"))); v.Behavior != Ask {
		t.Errorf("an undescribed tool = %+v, want ask", v)
	}
}

// Of two actions' verdicts the stricter decides, and at the same behavior a rule's
// verdict wins over the mode's: a hook's allow, which comes before the mode, must not
// override a deny rule that refused one of the actions.
func TestStricterPrefersRules(t *testing.T) {
	mode := Verdict{Behavior: Deny, FromMode: true, Source: "mode plan", Summary: "a"}
	rule := Verdict{Behavior: Deny, Source: "Edit(x)", Summary: "b"}
	askRule := Verdict{Behavior: Ask, FromAskRule: true, Source: "Bash(git push *)", Summary: "c"}
	ask := Verdict{Behavior: Ask, Source: "no matching rule", Suggest: []string{"Edit(./d)"}, Summary: "d"}
	allow := Verdict{Behavior: Allow, Source: "read-only tool", Summary: "e"}
	for _, c := range []struct {
		a, b Verdict
		want string
	}{
		{mode, rule, "Edit(x)"}, {rule, mode, "Edit(x)"}, {ask, askRule, "Bash(git push *)"}, {askRule, ask, "Bash(git push *)"},
		{allow, ask, "no matching rule"}, {ask, allow, "no matching rule"}, {allow, mode, "mode plan"},
	} {
		if got := stricter(c.a, c.b); got.Source != c.want {
			t.Errorf("stricter(%s, %s) = %s, want %s", c.a.Source, c.b.Source, got.Source, c.want)
		}
	}
	if got := stricter(ask, askRule); got.Suggest != nil {
		t.Errorf("an ask rule's verdict offers %v", got.Suggest)
	}
	if got := stricter(ask, Verdict{Behavior: Ask, Suggest: []string{"Bash(make)"}}); len(got.Suggest) != 2 {
		t.Errorf("two asks with rules offer %v, want both rules", got.Suggest)
	}
}

// A tool that describes no action does nothing the policy can allow: it asks.
func TestEmptyDescriptionAsks(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "acceptEdits", rules{})
	p.SetTools(tool.NewRegistry(quiet{}))
	if v := p.Check(context.Background(), e.call("Quiet", `{}`)); v.Behavior != Ask {
		t.Errorf("an empty description = %+v, want ask", v)
	}
}

type quiet struct{ frob }

func (quiet) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Quiet", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (quiet) Describe(json.RawMessage) ([]tool.Action, error) { return nil, nil }

// sandbox.autoAllowBashIfSandboxed allows a call that only runs lines inside the sandbox;
// a tool that also writes a file itself is asked about (refused headless), even when the
// sandbox would hold its line.
func TestSandboxAutoAllowOnlyForLines(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "", rules{})
	p.SetTools(tool.NewRegistry(frob{}, describing{"Bash"}))
	g := NewGate(p, nil, nil, nil)
	g.Sandboxed = func(tool.Call) bool { return true }
	in, _ := json.Marshal(map[string]string{"target": "a.go", "then": "make build"})
	if d := g.Gate(context.Background(), e.call("Frobnicate", string(in))); !d.Deny {
		t.Errorf("a write beside a sandboxed line was let through: %+v", d)
	}
	if d := g.Gate(context.Background(), e.call("Bash", bash("make build"))); d.Deny {
		t.Errorf("a sandboxed line was refused: %+v", d)
	}
}

// describing is a tool called name that describes a call as its command line.
type describing struct{ name string }

func (d describing) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: d.name, InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (describing) ReadOnly() bool                                       { return false }
func (describing) Run(context.Context, *tool.Exec) (tool.Result, error) { return tool.Text(""), nil }
func (describing) Describe(in json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeCommand(in)
}
