package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/agent"
)

// Input is what a hook receives: for a command hook, the JSON on its stdin. Which
// fields are sent depends on the event, as in Claude Code: every event carries
// session_id, transcript_path, cwd, permission_mode and hook_event_name.
type Input struct {
	Event          string // hook_event_name
	SessionID      string
	TranscriptPath string
	CWD            string
	PermissionMode string

	// PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure.
	ToolName  string
	ToolInput json.RawMessage
	ToolUseID string
	// ToolResponse (PostToolUse) has the fields of Claude Code's per-tool responses that
	// hook scripts read (filePath, stdout, filenames, success ...) and "content", the
	// result's whole text (see toolResponse).
	ToolResponse json.RawMessage
	// Error (PostToolUseFailure) is the text of the failed result; for StopFailure, the
	// short error (an HTTP status).
	Error string
	// ErrorType and ErrorMessage: StopFailure (error_type is what matchers select).
	ErrorType    string
	ErrorMessage string
	// ToolCalls (PostToolBatch) is the batch: tool_name, tool_input, tool_use_id,
	// tool_response and is_error of each call.
	ToolCalls json.RawMessage

	Prompt         string // UserPromptSubmit
	StopHookActive bool   // Stop, SubagentStop
	AgentType      string // SubagentStart, SubagentStop
	AgentID        string // SubagentStart, SubagentStop
	// AgentTranscriptPath and LastAssistantMessage: SubagentStop.
	AgentTranscriptPath  string
	LastAssistantMessage string
	Source               string // SessionStart: startup|resume|clear|compact; ConfigChange: user_settings ...
	Reason               string // SessionEnd; PermissionDenied: why the call was refused
	Trigger              string // PreCompact, PostCompact: manual|auto; Setup: init|maintenance
	CustomInstructions   string // PreCompact
	Message              string // Notification
	Name                 string // WorktreeCreate: the worktree's name
	WorktreePath         string // WorktreeRemove: the folder removed
	// TaskCreated, TaskCompleted: the task (TaskCompleted, TeammateIdle: the teammate and
	// its team; empty teammate_name for the lead).
	TaskID, TaskSubject, TaskDescription string
	TeammateName, TeamName               string
	// OldCWD and NewCWD: CwdChanged.
	OldCWD, NewCWD string
	// FilePath: FileChanged (the file that changed), InstructionsLoaded (the file loaded),
	// ConfigChange (the settings file that changed). FileEvent (FileChanged's "event"):
	// change, add or unlink.
	FilePath  string
	FileEvent string
	// InstructionsLoaded: memory_type (User, Project, Local, Managed), load_reason
	// (session_start, nested_traversal, path_glob_match, include, compact), and when they
	// apply the rule's globs, the file whose reading loaded it and the file that imported
	// it.
	MemoryType, LoadReason          string
	Globs                           []string
	TriggerFilePath, ParentFilePath string

	// conv is the conversation that wants to stop (Stop, SubagentStop), for prompt hooks.
	conv *agent.Conversation
}

// MarshalJSON writes the payload of Input's event: the common fields and the event's own.
func (in Input) MarshalJSON() ([]byte, error) {
	m := map[string]any{
		"session_id":      in.SessionID,
		"transcript_path": in.TranscriptPath,
		"cwd":             in.CWD,
		"permission_mode": in.PermissionMode,
		"hook_event_name": in.Event,
	}
	toolInput := in.ToolInput
	if len(toolInput) == 0 {
		toolInput = json.RawMessage(`{}`)
	}
	switch in.Event {
	case PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, PermissionDenied:
		m["tool_name"] = in.ToolName
		m["tool_input"] = toolInput
		m["tool_use_id"] = in.ToolUseID
		switch in.Event {
		case PostToolUse:
			resp := in.ToolResponse
			if len(resp) == 0 {
				resp = json.RawMessage(`{}`)
			}
			m["tool_response"] = resp
		case PostToolUseFailure:
			m["error"] = in.Error
		case PermissionDenied:
			m["reason"] = in.Reason
		}
	case UserPromptSubmit:
		m["prompt"] = in.Prompt
	case Stop:
		m["stop_hook_active"] = in.StopHookActive
		m["last_assistant_message"] = in.LastAssistantMessage
	case SubagentStop:
		m["stop_hook_active"] = in.StopHookActive
		m["agent_type"] = in.AgentType
		m["agent_id"] = in.AgentID
		m["agent_transcript_path"] = in.AgentTranscriptPath
		m["last_assistant_message"] = in.LastAssistantMessage
	case SubagentStart:
		m["agent_type"] = in.AgentType
		m["agent_id"] = in.AgentID
	case SessionStart:
		m["source"] = in.Source
	case SessionEnd:
		m["reason"] = in.Reason
	case PreCompact:
		m["trigger"] = in.Trigger
		m["custom_instructions"] = in.CustomInstructions
	case PostCompact:
		m["trigger"] = in.Trigger
	case Notification:
		m["message"] = in.Message
	case StopFailure:
		m["error_type"] = in.ErrorType
		m["error"] = in.Error
		m["error_message"] = in.ErrorMessage
		m["last_assistant_message"] = in.LastAssistantMessage
	case PostToolBatch:
		calls := in.ToolCalls
		if len(calls) == 0 {
			calls = json.RawMessage(`[]`)
		}
		m["tool_calls"] = calls
	case Setup:
		m["trigger"] = in.Trigger
	case WorktreeCreate:
		m["name"] = in.Name
	case WorktreeRemove:
		m["worktree_path"] = in.WorktreePath
	case TaskCreated, TaskCompleted:
		m["task_id"] = in.TaskID
		m["task_subject"] = in.TaskSubject
		m["task_description"] = in.TaskDescription
		if in.TeammateName != "" {
			m["teammate_name"] = in.TeammateName
		}
		if in.TeamName != "" {
			m["team_name"] = in.TeamName
		}
	case TeammateIdle:
		m["teammate_name"] = in.TeammateName
		m["team_name"] = in.TeamName
	case CwdChanged:
		m["old_cwd"] = in.OldCWD
		m["new_cwd"] = in.NewCWD
	case FileChanged:
		m["file_path"] = in.FilePath
		m["event"] = in.FileEvent
	case InstructionsLoaded:
		m["file_path"] = in.FilePath
		m["memory_type"] = in.MemoryType
		m["load_reason"] = in.LoadReason
		if len(in.Globs) > 0 {
			m["globs"] = in.Globs
		}
		if in.TriggerFilePath != "" {
			m["trigger_file_path"] = in.TriggerFilePath
		}
		if in.ParentFilePath != "" {
			m["parent_file_path"] = in.ParentFilePath
		}
	case ConfigChange:
		m["source"] = in.Source
		if in.FilePath != "" {
			m["file_path"] = in.FilePath
		}
	}
	return json.Marshal(m)
}

// subject is what the event's matcher is compared against.
func (in Input) subject() string {
	switch events[in.Event] {
	case "tool_name":
		return in.ToolName
	case "source":
		return in.Source
	case "trigger":
		return in.Trigger
	case "agent_type":
		return in.AgentType
	case "reason":
		return in.Reason
	case "error_type":
		return in.ErrorType
	case "load_reason":
		return in.LoadReason
	case "file_name":
		return filepath.Base(in.FilePath)
	}
	return ""
}

// Output is what a hook answers: for a command hook, the JSON it prints on stdout with
// exit code 0.
type Output struct {
	// Continue false stops the agent after this hook; StopReason is shown to the user.
	Continue   *bool  `json:"continue,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// SuppressOutput hides stdout from the transcript view (accepted, nothing to hide).
	SuppressOutput bool `json:"suppressOutput,omitempty"`
	// SystemMessage is shown to the user.
	SystemMessage string `json:"systemMessage,omitempty"`
	// Decision "block" with Reason blocks UserPromptSubmit, PostToolUse(Failure), Stop,
	// SubagentStop and PreCompact; on PreToolUse the legacy "approve"/"block" mean
	// allow/deny.
	Decision           string          `json:"decision,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput,omitempty"`

	// impossible is a prompt hook's verdict at Stop or SubagentStop that its condition
	// cannot be met: the run ends failed with this reason (see promptFunc).
	impossible string
}

// SpecificOutput is the event-specific part of an Output.
type SpecificOutput struct {
	HookEventName string `json:"hookEventName,omitempty"`
	// PreToolUse.
	PermissionDecision       string          `json:"permissionDecision,omitempty"` // allow|deny|ask
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
	// AdditionalContext is text for the model (PreToolUse, PostToolUse(Failure),
	// UserPromptSubmit, SessionStart, SubagentStart).
	AdditionalContext string `json:"additionalContext,omitempty"`
	// Decision answers a PermissionRequest.
	Decision *PermissionDecision `json:"decision,omitempty"`
	// WorktreePath is the folder a WorktreeCreate hook made (instead of printing it).
	WorktreePath string `json:"worktreePath,omitempty"`
	// Retry (PermissionDenied) tells the model it may retry the denied call.
	Retry bool `json:"retry,omitempty"`
	// WatchPaths (CwdChanged, FileChanged) are absolute paths of more files to watch for
	// FileChanged.
	WatchPaths []string `json:"watchPaths,omitempty"`
}

// PermissionDecision answers a PermissionRequest hook.
type PermissionDecision struct {
	Behavior     string          `json:"behavior"` // allow|deny
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	Message      string          `json:"message,omitempty"`
	// Interrupt with deny stops the agent.
	Interrupt bool `json:"interrupt,omitempty"`
}

// parseOutput reads a command hook's stdout: JSON when it starts with "{" and parses,
// plain text otherwise (ok false).
func parseOutput(stdout string) (out Output, ok bool) {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return Output{}, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&out); err != nil || dec.More() {
		return Output{}, false
	}
	return out, true
}

// check rejects output that does not fit event, so a typo (permissionDecision "alow")
// is reported instead of silently meaning nothing.
func (o Output) check(event string) error {
	switch o.Decision {
	case "", "block":
	case "approve":
		if event != PreToolUse {
			return fmt.Errorf(`decision "approve" only applies to PreToolUse`)
		}
	default:
		return fmt.Errorf(`decision %q is not "block"`, o.Decision)
	}
	h := o.HookSpecificOutput
	if h == nil {
		return nil
	}
	if h.HookEventName != "" && h.HookEventName != event {
		return fmt.Errorf("hookSpecificOutput.hookEventName is %q in a %s hook", h.HookEventName, event)
	}
	switch h.PermissionDecision {
	case "", "allow", "deny", "ask":
	default:
		return fmt.Errorf("permissionDecision %q is not allow, deny or ask", h.PermissionDecision)
	}
	if len(h.UpdatedInput) > 0 && !isObject(h.UpdatedInput) {
		return fmt.Errorf("updatedInput is not a JSON object")
	}
	if d := h.Decision; d != nil {
		if d.Behavior != "allow" && d.Behavior != "deny" {
			return fmt.Errorf("decision.behavior %q is not allow or deny", d.Behavior)
		}
		if len(d.UpdatedInput) > 0 && !isObject(d.UpdatedInput) {
			return fmt.Errorf("decision.updatedInput is not a JSON object")
		}
	}
	return nil
}

// decision is what the output decided, for reports.
func (o Output) decision() string {
	if h := o.HookSpecificOutput; h != nil {
		if h.PermissionDecision != "" {
			return h.PermissionDecision
		}
		if h.Decision != nil {
			return h.Decision.Behavior
		}
	}
	return o.Decision
}

func isObject(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}
