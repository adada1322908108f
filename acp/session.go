package acp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/todo"
)

// session is one ACP session: an ouro session and what the client has been shown of it.
type session struct {
	a  *Agent
	h  *harness.Session
	id string

	turn sync.Mutex // one prompt at a time

	mu      sync.Mutex
	stop    context.CancelFunc // the running turn's
	calls   map[string]*callView
	streamd bool            // this model turn's text came as deltas already
	thought bool            // and its thinking
	mode    permission.Mode // the mode the client was last told of
}

// modeChanged tells the client when the permission mode changed under it (the model
// left plan mode, a hook or a rule switched it).
func (s *session) modeChanged(ctx context.Context) {
	m := s.h.Policy().Mode()
	s.mu.Lock()
	changed := m != s.mode
	s.mode = m
	s.mu.Unlock()
	if changed {
		s.update(ctx, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(m)}})
	}
}

// prompt runs one turn of the session to its stop reason.
func (s *session) prompt(ctx context.Context, blocks []llm.Block) (sdk.PromptResponse, error) {
	if !s.turn.TryLock() {
		return sdk.PromptResponse{}, sdk.NewInvalidRequest(map[string]any{"error": "a prompt is already running in this session: wait for its answer, or send session/cancel"})
	}
	defer s.turn.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.stop = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.stop = nil
		s.mu.Unlock()
		cancel()
	}()
	if s.a.cfg.Expand != nil {
		var err error
		if blocks, err = s.a.cfg.Expand(ctx, s.h, blocks); err != nil {
			return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
	}
	s.h.WaitMCP(ctx)
	o := s.h.RunBlocks(ctx, blocks)
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	r, err := stopReason(o)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	// What the user must answer, or why the turn stopped short, is shown: the next
	// prompt continues the session from there.
	switch {
	case o.Status == agent.StatusNeedsInput && o.Question != "":
		s.say(ctx, "\n"+o.Question)
	case o.Status == agent.StatusBudgetExhausted && o.Reason != "":
		s.say(ctx, "\n"+o.Reason)
	}
	return sdk.PromptResponse{StopReason: r}, nil
}

func (s *session) cancel() {
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
}

func (s *session) close() error { return s.h.Close() }

// update sends one session/update. A client that went away loses it: the turn goes on
// (its transcript records everything) and ends when the connection's context does.
func (s *session) update(ctx context.Context, u sdk.SessionUpdate) {
	s.mu.Lock()
	id := s.id
	s.mu.Unlock()
	if id == "" { // still opening (a resumed plan): the client is sent it once open
		return
	}
	if err := s.a.conn.SessionUpdate(context.WithoutCancel(ctx), sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u}); err != nil {
		fmt.Fprintf(s.a.cfg.Warn, "ouro acp: session/update: %v\n", err)
	}
}

// say shows the user a line from ouro itself (what hooks want shown).
func (s *session) say(ctx context.Context, msg string) {
	s.update(ctx, sdk.UpdateAgentMessageText(msg+"\n"))
}

// modeInfo describes ouro's permission modes as ACP session modes.
var modeInfo = []struct {
	mode       permission.Mode
	name, desc string
}{
	{permission.ModeDefault, "Default", "Ask before edits and commands no rule allows"},
	{permission.ModeAcceptEdits, "Accept edits", "Allow file edits in the workspace without asking; ask for the rest"},
	{permission.ModePlan, "Plan", "Only look: refuse edits and commands that change anything"},
	{permission.ModeDontAsk, "Don't ask", "Refuse whatever would ask"},
	{permission.ModeBypass, "Bypass permissions", "Allow everything except the hard-denied set and deny/ask rules"},
}

func (s *session) modes() *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(s.h.Policy().Mode())}
	for _, m := range modeInfo {
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.mode), Name: m.name, Description: sdk.Ptr(m.desc)})
	}
	return st
}

// announce tells the client the commands a prompt may start with: the skills the user
// may invoke as /name.
func (s *session) announce(ctx context.Context) {
	cmds := []sdk.AvailableCommand{}
	if s.h.Skills != nil {
		for _, k := range s.h.Skills.Skills() {
			if !k.UserInvocable {
				continue
			}
			c := sdk.AvailableCommand{Name: k.Name, Description: k.Description}
			if k.ArgumentHint != "" {
				c.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: k.ArgumentHint}}
			}
			cmds = append(cmds, c)
		}
	}
	s.update(ctx, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
}

// plan sends the todo list (TodoWrite, or the task list mirrored) as the agent's plan.
func (s *session) plan(items []todo.Item) {
	entries := make([]sdk.PlanEntry, 0, len(items))
	for _, it := range items {
		st := sdk.PlanEntryStatusPending
		switch it.Status {
		case todo.InProgress:
			st = sdk.PlanEntryStatusInProgress
		case todo.Completed:
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: it.Content, Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	s.update(context.Background(), sdk.SessionUpdate{Plan: &sdk.SessionUpdatePlan{Entries: entries}})
}
