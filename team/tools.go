package team

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/tool"
)

// Tool names, as in Claude Code.
const (
	sendName     = "SendMessage"
	exitPlanName = "ExitPlanMode"
	// SendName is SendMessage's name.
	SendName = sendName
)

const sendDesc = `Send a message to a teammate (by name) or to the lead ("main"). It is the only way agents talk: your plain text reaches nobody. Delivered messages arrive in the recipient's next request. message is the text, or a protocol object: {"type":"shutdown_request","reason"} (lead only), {"type":"plan_approval_response","request_id","approve","feedback"} (lead only, answering a plan_approval_request).`

const sendSchema = `{"type":"object","properties":{` +
	`"to":{"type":"string","description":"A teammate's name, or \"main\" for the lead"},` +
	`"message":{"anyOf":[{"type":"string"},{"type":"object"}]},` +
	`"summary":{"type":"string","description":"5-10 words previewing the message"}},` +
	`"required":["to","message"],"additionalProperties":false}`

// sendTool is SendMessage for one agent of the team.
type sendTool struct {
	team *Team
	from string
}

// NewSendTool returns SendMessage for the lead.
func (t *Team) NewSendTool() tool.Tool { return &sendTool{team: t, from: Lead} }

func (s *sendTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: sendName, Description: sendDesc, InputSchema: json.RawMessage(sendSchema)}
}

// ReadOnly: a message changes nothing on disk, but it is a step others act on; it runs
// in order with the agent's other calls.
func (s *sendTool) ReadOnly() bool { return false }

// Describe implements tool.Describer: a message goes to a teammate of the session.
func (s *sendTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

type protocolBody struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Approve   *bool  `json:"approve"`
	Reason    string `json:"reason"`
	Feedback  string `json:"feedback"`
	Content   string `json:"content"`
}

func (s *sendTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	var in struct {
		To      string          `json:"to"`
		Message json.RawMessage `json:"message"`
		Summary string          `json:"summary"`
	}
	if err := json.Unmarshal(x.Input, &in); err != nil {
		return tool.Errorf("Invalid input for SendMessage: %v", err), nil
	}
	m := mailbox.Message{From: s.from, To: in.To, Summary: strings.TrimSpace(in.Summary)}
	raw := bytes.TrimSpace(in.Message)
	if len(raw) > 0 && raw[0] == '{' {
		var p protocolBody
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return tool.Errorf("SendMessage: message as an object must be a protocol message (type shutdown_request or plan_approval_response): %v", err), nil
		}
		switch mailbox.Kind(p.Type) {
		case mailbox.ShutdownRequest:
			m.Kind, m.Text = mailbox.ShutdownRequest, firstNonEmpty(p.Reason, p.Content, "The lead asks you to shut down.")
		case mailbox.PlanApprovalResponse:
			m.Kind, m.RequestID, m.Approve = mailbox.PlanApprovalResponse, p.RequestID, p.Approve
			m.Text = firstNonEmpty(p.Feedback, p.Reason, p.Content)
			if m.Text == "" && p.Approve != nil && *p.Approve {
				m.Text = "Your plan is approved: go ahead."
			}
		default:
			return tool.Errorf("SendMessage: message type %q is not one of shutdown_request, plan_approval_response; send plain text as a string.", p.Type), nil
		}
	} else if err := json.Unmarshal(raw, &m.Text); err != nil {
		return tool.Errorf("SendMessage: message must be a string or a protocol object"), nil
	}
	if s.from == Lead && m.Kind == mailbox.Text && s.team.member(strings.TrimSpace(m.To)) == nil && m.To != Lead {
		// A background agent (no name, started with run_in_background) is continued.
		if res, err := s.team.cfg.Agents.Continue(m.To, m.Text); err == nil {
			return res, nil
		}
	}
	// Whether an in-process recipient had stopped is read before the message goes: a
	// shutdown request stops its teammate, often before Send returns, and that teammate
	// did read the request.
	stoppedBefore, why := false, ""
	if tm := s.team.member(strings.TrimSpace(m.To)); tm != nil && tm.kind.process() == nil {
		tm.mu.Lock()
		stoppedBefore, why = tm.status == StatusStopped, tm.reason
		tm.mu.Unlock()
	}
	sent, err := s.team.Send(ctx, m)
	if err != nil {
		return tool.Errorf("SendMessage failed: %v", err), nil
	}
	what := "Message"
	switch sent.Kind {
	case mailbox.ShutdownRequest:
		what = "Shutdown request " + sent.RequestID
	case mailbox.PlanApprovalResponse:
		what = "Plan approval response to " + sent.RequestID
	}
	if tm := s.team.member(sent.To); tm != nil && tm.kind.process().ended() {
		return tool.Text(fmt.Sprintf("%s stored for %s (message id %s), but its process has ended: spawn a teammate with that name again to deliver it.", what, sent.To, sent.ID)), nil
	} else if stoppedBefore {
		if why != "" {
			why = " (" + why + ")"
		}
		return tool.Text(fmt.Sprintf("%s stored for %s (message id %s), but %s has stopped%s and reads nothing now: it is delivered only if a teammate named %s is spawned again. Do not wait for an answer.", what, sent.To, sent.ID, sent.To, why, sent.To)), nil
	}
	return tool.Text(fmt.Sprintf("%s sent to %s (message id %s). It arrives in their next request.", what, sent.To, sent.ID)), nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// exitPlanTool is ExitPlanMode for a teammate in plan mode: it sends the plan to the lead
// as a plan_approval_request.
type exitPlanTool struct{ tm *teammate }

func (e *exitPlanTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: exitPlanName,
		Description: "Send your plan to the lead for approval. You may not change anything until it is approved; the answer arrives as a message naming the request id.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"plan":{"type":"string","description":"The plan, in markdown"}},"required":["plan"],"additionalProperties":false}`)}
}

func (e *exitPlanTool) ReadOnly() bool { return false }

// Describe implements tool.Describer: presenting a plan changes only the session.
func (e *exitPlanTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

func (e *exitPlanTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	var in struct {
		Plan string `json:"plan"`
	}
	if err := json.Unmarshal(x.Input, &in); err != nil || strings.TrimSpace(in.Plan) == "" {
		return tool.Errorf("ExitPlanMode needs the plan in plan."), nil
	}
	tm := e.tm
	tm.mu.Lock()
	approved, open := tm.approved, tm.planReq
	tm.mu.Unlock()
	if approved {
		return tool.Text("Your plan is already approved; go ahead."), nil
	}
	if open != "" {
		return tool.Errorf("Your plan %s is still waiting for the lead's answer; wait for it (it arrives as a message).", open), nil
	}
	id, err := tm.team.ask(ctx, tm.name, mailbox.PlanApprovalRequest, in.Plan, "plan for approval")
	if err != nil {
		return tool.Errorf("ExitPlanMode failed: %v", err), nil
	}
	tm.mu.Lock()
	tm.planReq = id
	tm.mu.Unlock()
	return tool.Text(fmt.Sprintf("Plan sent to the lead for approval (request_id %s). Stop here and wait: the answer arrives as a message.", id)), nil
}
