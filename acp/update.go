package acp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// callView is what the client has been told about one tool call.
type callView struct {
	kind  sdk.ToolKind
	title string
	path  string
	diff  []sdk.ToolCallContent // an edit's, as proposed (the file changes once it runs)
}

// observe turns the session's events into session/update notifications: streamed text
// and thinking as chunks, each tool_use as a tool_call when the model's message
// arrives (so a permission request can name it), its start and result as
// tool_call_updates.
func (s *session) observe(e agent.Event) {
	ctx := context.Background()
	switch e.Type {
	case agent.EventTurnStart:
		s.mu.Lock()
		s.streamd, s.thought = false, false
		s.mu.Unlock()
	case agent.EventDelta:
		switch e.Delta.Kind {
		case "text":
			s.mu.Lock()
			s.streamd = true
			s.mu.Unlock()
			s.update(ctx, sdk.UpdateAgentMessageText(e.Delta.Text))
		case "thinking":
			s.mu.Lock()
			s.thought = true
			s.mu.Unlock()
			s.update(ctx, sdk.UpdateAgentThoughtText(e.Delta.Text))
		}
	case agent.EventMessage:
		if e.Message == nil || e.Message.Role != llm.RoleAssistant {
			return
		}
		s.mu.Lock()
		streamd, thought := s.streamd, s.thought
		s.streamd, s.thought = false, false
		s.mu.Unlock()
		for _, b := range e.Message.Content {
			switch b.Type {
			case llm.BlockText:
				if !streamd && b.Text != "" {
					s.update(ctx, sdk.UpdateAgentMessageText(b.Text))
				}
			case llm.BlockThinking:
				if !thought && b.Thinking != "" {
					s.update(ctx, sdk.UpdateAgentThoughtText(b.Thinking))
				}
			case llm.BlockToolUse:
				s.update(ctx, s.startCall(tool.Call{ID: b.ID, Name: b.Name, Input: b.Input}, sdk.ToolCallStatusPending))
			}
		}
	case agent.EventToolStart:
		if e.Call != nil {
			s.update(ctx, sdk.UpdateToolCall(sdk.ToolCallId(e.Call.ID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
		}
	case agent.EventToolEnd:
		if e.Call != nil && e.Result != nil {
			s.update(ctx, s.endCall(*e.Call, *e.Result))
		}
		s.modeChanged(ctx)
	}
}

// kindOf is how a client should show a call of the named tool (its icon, whether it
// follows a file). It only presents: what a call may do is the policy's to decide.
func kindOf(name string) sdk.ToolKind {
	switch name {
	case "Read", "NotebookRead":
		return sdk.ToolKindRead
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return sdk.ToolKindEdit
	case "Bash", "BashOutput", "KillShell", "KillBash":
		return sdk.ToolKindExecute
	case "Glob", "Grep", "LS", "ToolSearch":
		return sdk.ToolKindSearch
	case "WebFetch", "WebSearch":
		return sdk.ToolKindFetch
	case "TodoWrite", "Task", "Agent":
		return sdk.ToolKindThink
	case "ExitPlanMode", "EnterPlanMode":
		return sdk.ToolKindSwitchMode
	}
	return sdk.ToolKindOther
}

// callInput is the part of a call's input the client is shown besides the raw input.
type callInput struct {
	FilePath    string `json:"file_path"`
	Path        string `json:"path"`
	Pattern     string `json:"pattern"`
	Command     string `json:"command"`
	Description string `json:"description"`
	URL         string `json:"url"`
	Content     string `json:"content"`
	OldString   string `json:"old_string"`
	NewString   string `json:"new_string"`
	Offset      *int   `json:"offset"`
}

// view describes a call: its title, kind, the file it is about and, for an edit, the
// diff it proposes.
func (s *session) view(c tool.Call) (*callView, []sdk.ToolCallLocation, []sdk.ToolCallContent) {
	var in callInput
	_ = json.Unmarshal(c.Input, &in)
	v := &callView{kind: kindOf(c.Name), title: c.Name}
	path := in.FilePath
	if path == "" && (c.Name == "LS" || c.Name == "Glob" || c.Name == "Grep") {
		path = in.Path
	}
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(s.h.CWD, path)
	}
	v.path = path
	var locs []sdk.ToolCallLocation
	if path != "" {
		l := sdk.ToolCallLocation{Path: path}
		if in.Offset != nil && *in.Offset > 0 {
			l.Line = sdk.Ptr(*in.Offset)
		}
		locs = append(locs, l)
	}
	var content []sdk.ToolCallContent
	switch {
	case in.Command != "":
		v.title = "`" + textcut.OneLine(in.Command, 120, "…") + "`"
		if in.Description != "" {
			content = append(content, sdk.ToolContent(sdk.TextBlock(in.Description)))
		}
	case c.Name == "Write" && path != "":
		v.title = "Write " + s.rel(path)
		if old, ok := s.shownFile(path); ok {
			content = append(content, sdk.ToolDiffContent(path, in.Content, old))
		} else {
			content = append(content, sdk.ToolDiffContent(path, in.Content))
		}
	case c.Name == "Edit" && path != "":
		v.title = "Edit " + s.rel(path)
		content = append(content, sdk.ToolDiffContent(path, in.NewString, in.OldString))
	case path != "":
		v.title = c.Name + " " + s.rel(path)
	case in.Pattern != "":
		v.title = c.Name + " " + textcut.OneLine(in.Pattern, 80, "…")
	case in.URL != "":
		v.title = c.Name + " " + textcut.OneLine(in.URL, 120, "…")
	}
	return v, locs, content
}

// shownFile is the text a Write would replace, for its diff: only a regular file (a
// named pipe would block) inside the workspace that the policy lets be read, since the
// call is shown before the gate has judged it.
func (s *session) shownFile(path string) (string, bool) {
	real, err := s.h.Workspace.Resolve(path)
	if err != nil || s.h.Policy().ReadDenied(real) {
		return "", false
	}
	data, err := regfile.Read(real, maxShownFile)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// maxShownFile bounds the old text of a Write's diff.
const maxShownFile = 1 << 20

func (s *session) rel(path string) string {
	if r, err := filepath.Rel(s.h.CWD, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// startCall announces a call the model made.
func (s *session) startCall(c tool.Call, st sdk.ToolCallStatus) sdk.SessionUpdate {
	v, locs, content := s.view(c)
	if v.kind == sdk.ToolKindEdit {
		v.diff = content
	}
	s.mu.Lock()
	s.calls[c.ID] = v
	s.mu.Unlock()
	return sdk.StartToolCall(sdk.ToolCallId(c.ID), v.title, sdk.WithStartKind(v.kind), sdk.WithStartStatus(st),
		sdk.WithStartLocations(locs), sdk.WithStartContent(content), sdk.WithStartRawInput(rawJSON(c.Input)))
}

// endCall reports a call's result: completed or failed, with its text (an edit keeps
// showing its diff).
func (s *session) endCall(c tool.Call, res llm.Block) sdk.SessionUpdate {
	s.mu.Lock()
	v := s.calls[c.ID]
	delete(s.calls, c.ID)
	s.mu.Unlock()
	st := sdk.ToolCallStatusCompleted
	if res.IsError {
		st = sdk.ToolCallStatusFailed
	}
	var content []sdk.ToolCallContent
	if v != nil && v.kind == sdk.ToolKindEdit && !res.IsError {
		content = append(content, v.diff...)
	}
	text := resultText(res)
	if text != "" && (v == nil || v.kind != sdk.ToolKindEdit || res.IsError) {
		content = append(content, sdk.ToolContent(sdk.TextBlock(fence(text))))
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(st), sdk.WithUpdateRawOutput(map[string]any{"content": text, "is_error": res.IsError})}
	if len(content) > 0 {
		opts = append(opts, sdk.WithUpdateContent(content))
	}
	return sdk.UpdateToolCall(sdk.ToolCallId(c.ID), opts...)
}

// resultText is a tool_result's text blocks, joined.
func resultText(b llm.Block) string {
	var parts []string
	for _, c := range b.Content {
		if c.Type == llm.BlockText {
			parts = append(parts, c.Text)
		}
	}
	if len(parts) == 0 && b.Text != "" {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// fence shows a result as preformatted text: clients render ACP text as Markdown, and a
// command's output is not.
func fence(text string) string {
	f := "```"
	for strings.Contains(text, f) {
		f += "`"
	}
	return f + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}

func rawJSON(in json.RawMessage) any {
	var v any
	if json.Unmarshal(in, &v) != nil {
		return map[string]any{}
	}
	return v
}

// callUpdate is the tool_call a permission request is about.
func (s *session) callUpdate(c tool.Call) sdk.ToolCallUpdate {
	v, locs, content := s.view(c)
	return sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(c.ID), Title: sdk.Ptr(v.title), Kind: sdk.Ptr(v.kind),
		Status: sdk.Ptr(sdk.ToolCallStatusPending), Locations: locs, Content: content, RawInput: rawJSON(c.Input)}
}
