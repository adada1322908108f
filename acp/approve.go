package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/permission"
)

// The options a permission request offers.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optReject      = "reject"
)

// Approve puts a call the permission policy asks about to the user in the editor
// (session/request_permission): allow once; allow always, which adds the suggested
// rule for the rest of the session (offered when a rule can allow the call); or
// reject. A cancelled turn, or a client that does not answer, refuses the call.
func (s *session) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	opts := []sdk.PermissionOption{{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow once", OptionId: optAllowOnce}}
	if len(p.Rules) > 0 {
		opts = append(opts, sdk.PermissionOption{Kind: sdk.PermissionOptionKindAllowAlways,
			Name: "Always allow " + p.SuggestedRule + " in this session", OptionId: optAllowAlways})
	}
	opts = append(opts, sdk.PermissionOption{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: optReject})
	call := s.callUpdate(p.Call)
	if p.Summary != "" {
		call.Title = sdk.Ptr(textcut.OneLine(p.Summary, 200, "…"))
	}
	if p.Reach != "" {
		call.Content = append(call.Content, sdk.ToolContent(sdk.TextBlock(p.Reach)))
	}
	if s.a.tap.closed() {
		return permission.Answer{Choice: permission.No, Reason: "the editor closed the connection, so nobody can approve this call"}, nil
	}
	qctx, cancel := s.a.tap.whileOpen(ctx)
	defer cancel()
	resp, err := s.a.conn.RequestPermission(qctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(s.id), ToolCall: call, Options: opts})
	if err != nil {
		if s.a.tap.closed() {
			return permission.Answer{Choice: permission.No, Reason: "the editor closed the connection, so nobody can approve this call"}, nil
		}
		if ctx.Err() != nil {
			return permission.Answer{Choice: permission.No, Reason: "the user cancelled the turn"}, nil
		}
		return permission.Answer{}, fmt.Errorf("the editor did not answer the permission request: %w", err)
	}
	if resp.Outcome.Selected == nil {
		return permission.Answer{Choice: permission.No, Reason: "the user cancelled the turn"}, nil
	}
	switch string(resp.Outcome.Selected.OptionId) {
	case optAllowOnce:
		return permission.Answer{Choice: permission.Once}, nil
	case optAllowAlways:
		if len(p.Rules) > 0 {
			return permission.Answer{Choice: permission.Session}, nil
		}
		return permission.Answer{Choice: permission.Once}, nil
	case optReject:
		return permission.Answer{Choice: permission.No, Reason: "the user rejected this call in the editor"}, nil
	}
	return permission.Answer{}, fmt.Errorf("the editor chose %q, which is not one of the options offered", resp.Outcome.Selected.OptionId)
}
