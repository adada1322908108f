package sdkproto

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/permission"
)

// Approver puts the calls ouro's permission policy asks about to the SDK's canUseTool
// callback (--permission-prompt-tool stdio): a can_use_tool request, answered with allow
// (optionally with updatedInput, which the policy judges again, and updatedPermissions)
// or deny (optionally interrupting the turn).
type Approver struct {
	Ch *Channel
	// Timeout bounds each question (the channel's when 0); no answer in time refuses the
	// call.
	Timeout time.Duration
	// Policy receives the updatedPermissions of an allow.
	Policy func() *permission.Policy
	// Interrupt ends the current turn (a deny with "interrupt": true).
	Interrupt func()
	// Warn reports updatedPermissions ouro cannot apply.
	Warn func(string)
}

// Suggestion is one entry of permission_suggestions / updatedPermissions (the SDK's
// PermissionUpdate as its to_dict writes it).
type Suggestion struct {
	Type        string     `json:"type"`
	Rules       []RuleJSON `json:"rules,omitempty"`
	Behavior    string     `json:"behavior,omitempty"`
	Mode        string     `json:"mode,omitempty"`
	Directories []string   `json:"directories,omitempty"`
	Destination string     `json:"destination,omitempty"`
}

// RuleJSON is a permission rule split as the SDK sends it: "Bash(go test *)" is
// {"toolName":"Bash","ruleContent":"go test *"}.
type RuleJSON struct {
	ToolName    string  `json:"toolName"`
	RuleContent *string `json:"ruleContent"`
}

// splitRule turns ouro's rule text into the SDK's shape.
func splitRule(text string) RuleJSON {
	if i := strings.IndexByte(text, '('); i > 0 && strings.HasSuffix(text, ")") {
		c := text[i+1 : len(text)-1]
		return RuleJSON{ToolName: text[:i], RuleContent: &c}
	}
	return RuleJSON{ToolName: text}
}

// String is the rule as ouro's settings spell it.
func (r RuleJSON) String() string {
	if r.RuleContent == nil || *r.RuleContent == "" {
		return r.ToolName
	}
	return r.ToolName + "(" + *r.RuleContent + ")"
}

type permissionAnswer struct {
	Behavior           string          `json:"behavior"`
	UpdatedInput       json.RawMessage `json:"updatedInput"`
	UpdatedPermissions []Suggestion    `json:"updatedPermissions"`
	Message            string          `json:"message"`
	Interrupt          bool            `json:"interrupt"`
}

// Approve asks the SDK. An error (no answer in time, a malformed answer) makes the gate
// refuse the call with that error as the reason.
func (a *Approver) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	input := p.Call.Input
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	suggestions := []Suggestion{}
	if len(p.Rules) > 0 {
		s := Suggestion{Type: "addRules", Behavior: "allow", Destination: "session"}
		for _, r := range p.Rules {
			s.Rules = append(s.Rules, splitRule(r))
		}
		suggestions = append(suggestions, s)
	}
	raw, err := a.Ch.Call(ctx, "can_use_tool", map[string]any{
		"tool_name":              p.Call.Name,
		"input":                  input,
		"permission_suggestions": suggestions,
		"blocked_path":           nil,
		"decision_reason":        p.Reach,
		"title":                  p.Summary,
		"tool_use_id":            p.Call.ID,
	}, a.Timeout)
	if err != nil {
		return permission.Answer{}, err
	}
	var ans permissionAnswer
	if err := json.Unmarshal(raw, &ans); err != nil {
		return permission.Answer{}, fmt.Errorf("the SDK's can_use_tool answer is not {\"behavior\":\"allow\"|\"deny\",...}: %v", err)
	}
	switch ans.Behavior {
	case "allow":
		a.apply(ans.UpdatedPermissions)
		out := permission.Answer{Choice: permission.Once}
		if u := bytes.TrimSpace(ans.UpdatedInput); len(u) > 0 && string(u) != "null" && !sameJSON(u, input) {
			if u[0] != '{' {
				return permission.Answer{}, fmt.Errorf("the SDK's updatedInput must be a JSON object, got %s", textcut.Bytes(string(u), 80, "…"))
			}
			out.UpdatedInput = json.RawMessage(u)
		}
		return out, nil
	case "deny":
		if ans.Interrupt && a.Interrupt != nil {
			a.Interrupt()
		}
		msg := ans.Message
		if msg == "" {
			msg = "denied by the SDK's canUseTool callback"
		}
		return permission.Answer{Choice: permission.No, Reason: msg}, nil
	}
	return permission.Answer{}, fmt.Errorf("the SDK's can_use_tool answer has behavior %q; expected \"allow\" or \"deny\"", ans.Behavior)
}

// apply makes the permission updates of an allow: rules that allow (for the session, or
// saved in the project's local settings) and a mode change. What ouro has no equivalent
// for is reported, not silently dropped.
func (a *Approver) apply(ups []Suggestion) {
	if len(ups) == 0 || a.Policy == nil {
		return
	}
	pol := a.Policy()
	warn := func(format string, args ...any) {
		if a.Warn != nil {
			a.Warn(fmt.Sprintf(format, args...))
		}
	}
	for _, u := range ups {
		switch u.Type {
		case "addRules":
			kind := u.Behavior
			if kind == "" {
				kind = "allow"
			}
			if kind != "allow" && kind != "ask" && kind != "deny" {
				warn("the SDK's updatedPermissions adds %q rules; a rule is allow, ask or deny, so they are ignored", u.Behavior)
				continue
			}
			for _, r := range u.Rules {
				var err error
				// A deny or ask narrows what is allowed: it holds as asked, for the
				// session or saved, like the user's /permissions.
				if u.Destination == "localSettings" || u.Destination == "projectSettings" || u.Destination == "userSettings" {
					err = pol.SaveLocalRule(kind, r.String())
				} else {
					err = pol.AddSessionRuleKind(kind, r.String())
				}
				if err != nil {
					warn("the SDK's rule %s: %v", r.String(), err)
				}
			}
		case "setMode":
			m, err := permission.ParseMode(u.Mode)
			if err == nil {
				err = pol.SetMode(m)
			}
			if err != nil {
				warn("the SDK's setMode: %v", err)
			}
		default:
			warn("the SDK's updatedPermissions of type %q is not supported by ouro; ignored", u.Type)
		}
	}
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
