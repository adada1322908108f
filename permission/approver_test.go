package permission

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/tool"
)

func TestTerminalApprover(t *testing.T) {
	withRule := Prompt{Call: tool.Call{Name: "Bash"}, Summary: "go test ./...", Reach: "no allow rule covers `go test ./...`",
		SuggestedRule: "Bash(go test *)", Rules: []string{"Bash(go test *)"}}
	noRule := Prompt{Call: tool.Call{Name: "Edit"}, Summary: "Edit /p/.git/config", Reach: "writes /p/.git/config, a protected path"}
	cases := []struct {
		in     string
		p      Prompt
		choice Choice
		reason string
	}{
		{"y\n", withRule, Once, ""},
		{"YES\n", withRule, Once, ""},
		{"s\n", withRule, Session, ""},
		{"a\n", withRule, Always, ""},
		{"always\n", withRule, Always, ""},
		{"s\n", noRule, Once, ""},
		{"a\n", noRule, Once, ""},
		{"n\n", withRule, No, ""},
		{"n use make test instead\n", withRule, No, "use make test instead"},
		{"please don't\n", withRule, No, "please don't"},
		{"", withRule, No, "the user did not answer (end of input)"},
		{"y", withRule, Once, ""}, // a last line without newline still counts
	}
	for _, c := range cases {
		var out bytes.Buffer
		term := &Terminal{In: strings.NewReader(c.in), Out: &out}
		ans, err := term.Approve(context.Background(), c.p)
		if err != nil {
			t.Fatal(err)
		}
		if ans.Choice != c.choice || ans.Reason != c.reason {
			t.Errorf("%q on %s: got %v %q, want %v %q", c.in, c.p.Summary, ans.Choice, ans.Reason, c.choice, c.reason)
		}
		shown := out.String()
		if !strings.Contains(shown, c.p.Summary) || !strings.Contains(shown, c.p.Reach) {
			t.Errorf("the prompt does not show the action and its reach:\n%s", shown)
		}
		if (c.p.SuggestedRule != "") != strings.Contains(shown, "[a] always allow Bash(go test *)") {
			t.Errorf("the always choice is shown wrongly:\n%s", shown)
		}
	}
}

func TestTerminalApproverReadsAnswersInTurn(t *testing.T) {
	term := &Terminal{In: strings.NewReader("y\nn nope\n"), Out: io.Discard}
	p := Prompt{Summary: "x"}
	a1, _ := term.Approve(context.Background(), p)
	a2, _ := term.Approve(context.Background(), p)
	if a1.Choice != Once || a2.Choice != No || a2.Reason != "nope" {
		t.Errorf("answers %+v %+v", a1, a2)
	}
}

func TestTerminalApproverCancelled(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	term := &Terminal{In: r, Out: io.Discard}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := term.Approve(ctx, Prompt{Summary: "x"}); err == nil {
		t.Error("a cancelled prompt returned no error")
	}
}

func TestHeadlessApprover(t *testing.T) {
	ans, err := Headless{}.Approve(context.Background(), Prompt{Summary: "npm publish", Reach: "no allow rule covers it",
		SuggestedRule: "Bash(npm publish)", Rules: []string{"Bash(npm publish)"}})
	if err != nil || ans.Choice != No {
		t.Fatalf("%+v %v", ans, err)
	}
	for _, w := range []string{"headless run: npm publish would need approval", "no allow rule covers it", `--allowedTools "Bash(npm publish)"`} {
		if !strings.Contains(ans.Reason, w) {
			t.Errorf("reason %q lacks %q", ans.Reason, w)
		}
	}
}

func TestChoiceAndBehaviorNames(t *testing.T) {
	if Once.String() != "once" || Session.String() != "session" || Always.String() != "always" || No.String() != "no" {
		t.Error("choice names")
	}
	if Allow.String() != "allow" || Ask.String() != "ask" || Deny.String() != "deny" {
		t.Error("behavior names")
	}
	var v Verdict
	if v.Behavior != Ask {
		t.Error("a zero verdict must ask, never allow")
	}
}
