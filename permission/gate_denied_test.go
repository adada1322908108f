package permission

import (
	"context"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

// deniedHook is a fakeHook that is told of the gate's own denials and answers retry.
type deniedHook struct {
	fakeHook
	retry  bool
	denied []string // "tool: reason" of each denial it was told of
}

func (h *deniedHook) PermissionDenied(_ context.Context, c tool.Call, reason string) bool {
	h.denied = append(h.denied, c.Name+": "+reason)
	return h.retry
}

// The PermissionDenied hooks hear of what the gate refuses on its own (a deny rule, the
// mode, a headless run's ask) and may tell the model to retry; they do not hear of what a
// person or a PreToolUse hook refused, and their retry never turns a denial into an allow.
func TestGatePermissionDeniedHooks(t *testing.T) {
	e := newEnv(t)
	rs := rules{deny: []string{"Bash(curl *)"}, ask: []string{"Bash(git push *)"}}
	cases := []struct {
		name, mode, command string
		approver            Approver
		pre                 string // the PreToolUse hook's decision
		told                bool
	}{
		{"deny rule", "", "curl x", Headless{}, "", true},
		{"dontAsk refuses what no rule allows", "dontAsk", "npm i", Headless{}, "", true},
		{"plan refuses a write", "plan", "npm i", Headless{}, "", true},
		{"headless: nobody to ask", "", "git push origin", Headless{}, "", true},
		{"a person said no", "", "git push origin", &fakeApprover{answer: Answer{Choice: No}}, "", false},
		{"a PreToolUse hook denied", "", "make", Headless{}, "deny", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, retry := range []bool{false, true} {
				h := &deniedHook{fakeHook: fakeHook{v: HookVerdict{Decision: tc.pre, Reason: "hook says no"}}, retry: retry}
				g := NewGate(e.policy(t, tc.mode, rs), tc.approver, h, nil)
				d := g.Gate(context.Background(), e.call("Bash", bash(tc.command)))
				if !d.Deny {
					t.Fatalf("allowed: %+v", d)
				}
				if told := len(h.denied) == 1; told != tc.told {
					t.Fatalf("told %v (%v), want %v", told, h.denied, tc.told)
				}
				if tc.told && !strings.HasSuffix(h.denied[0], ": "+strings.TrimSuffix(d.Reason, "\n\n"+RetryNote)) {
					t.Errorf("the hook heard %q, the model %q", h.denied[0], d.Reason)
				}
				if hasNote := strings.Contains(d.Reason, RetryNote); hasNote != (retry && tc.told) {
					t.Errorf("retry %v: reason %q", retry, d.Reason)
				}
			}
		})
	}
}
