package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/ouroagent/ouro/mcpclient"
)

// errFormCancelled ends a form the user cancelled at one of its fields.
var errFormCancelled = errors.New("the user cancelled the form")

// elicitMCP asks the person at the REPL for what an MCP server requests (elicitation):
// the server's message, then y to fill in the form, n to decline or c to cancel; each
// field is asked in turn and its answer checked against the field's schema (asked again
// until it fits). "/cancel" at a field cancels the whole form.
func (a *replApprover) elicitMCP(ctx context.Context, e *mcpclient.Elicitation) mcpclient.Answer {
	r := a.r
	r.inMu.Lock()
	defer r.inMu.Unlock()
	r.endLine()
	fmt.Fprintf(r.Out, "\nThe MCP server %q asks for your input:\n%s\n", e.Server, indentLines(e.Message, "  "))
	if len(e.Fields) > 0 {
		var names []string
		for _, f := range e.Fields {
			names = append(names, f.Name)
		}
		fmt.Fprintf(r.Out, "  form: %s\n", strings.Join(names, ", "))
	}
	fmt.Fprint(r.Out, "  [y] answer  [n] decline  [c] cancel\n? ")
	for {
		line, err := r.readLine(ctx)
		if err != nil {
			return mcpclient.Answer{Action: mcpclient.ElicitCancel, Reason: "the input ended"}
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
		case "n", "no":
			return mcpclient.Answer{Action: mcpclient.ElicitDecline, Reason: "the user declined"}
		case "c", "cancel":
			return mcpclient.Answer{Action: mcpclient.ElicitCancel, Reason: "the user cancelled"}
		default:
			fmt.Fprint(r.Out, "  type y, n or c\n? ")
			continue
		}
		break
	}
	content, err := e.Fill(func(f mcpclient.Field, problem string) (string, error) {
		if problem != "" {
			fmt.Fprintf(r.Out, "  ✗ %s\n", problem)
		} else {
			fmt.Fprint(r.Out, describeField(f))
		}
		fmt.Fprintf(r.Out, "  %s> ", f.Name)
		line, err := r.readLine(ctx)
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(line) == "/cancel" {
			return "", errFormCancelled
		}
		return line, nil
	})
	if err != nil {
		return mcpclient.Answer{Action: mcpclient.ElicitCancel, Reason: err.Error()}
	}
	return mcpclient.Answer{Action: mcpclient.ElicitAccept, Content: content}
}

// describeField is the lines shown before a field is asked.
func describeField(f mcpclient.Field) string {
	var sb strings.Builder
	head := f.Name
	if f.Title != "" && f.Title != f.Name {
		head += " — " + f.Title
	}
	var notes []string
	kind := map[string]string{"string": "text", "number": "number", "integer": "whole number",
		"boolean": "yes/no", "array": "choices, comma-separated"}[f.Type]
	if f.Format != "" {
		kind += ", " + f.Format
	}
	notes = append(notes, kind)
	if f.Required {
		notes = append(notes, "required")
	}
	if f.Default != nil {
		d, _ := json.Marshal(f.Default)
		notes = append(notes, "Enter for "+Clip(string(d), 80))
	} else if !f.Required {
		notes = append(notes, "Enter to leave it out")
	}
	fmt.Fprintf(&sb, "  %s (%s)\n", head, strings.Join(notes, "; "))
	if f.Description != "" {
		fmt.Fprintf(&sb, "    %s\n", f.Description)
	}
	for i, c := range f.Choices {
		if t := f.ChoiceTitles[i]; t != "" && t != c {
			c += " — " + t
		}
		fmt.Fprintf(&sb, "    %d) %s\n", i+1, c)
	}
	return sb.String()
}

// elicitEvent is ouro's stream-json line for an MCP server's request for input and
// what became of it (a headless run declines, saying why).
type elicitEvent struct {
	Type      string   `json:"type"`
	Subtype   string   `json:"subtype"`
	Server    string   `json:"server"`
	Message   string   `json:"message"`
	Fields    []string `json:"fields,omitempty"`
	Action    string   `json:"action"`
	Reason    string   `json:"reason,omitempty"`
	SessionID string   `json:"session_id"`
	UUID      string   `json:"uuid"`
}

// MCPElicitation reports an MCP server's request for input and its answer: a
// system/mcp_elicitation line in stream-json. Safe for concurrent use.
func (h *Headless) MCPElicitation(e *mcpclient.Elicitation, a mcpclient.Answer) {
	if h.format != FormatStreamJSON {
		return
	}
	ev := elicitEvent{Type: "system", Subtype: "mcp_elicitation", Server: e.Server, Message: e.Message,
		Action: a.Action, Reason: a.Reason, SessionID: h.sessionID, UUID: uuid.NewString()}
	for _, f := range e.Fields {
		ev.Fields = append(ev.Fields, f.Name)
	}
	h.line(ev)
}

// HeadlessElicit is how a headless run answers an MCP server's request for input: it
// declines, as nobody is there to answer.
func HeadlessElicit(context.Context, *mcpclient.Elicitation) mcpclient.Answer {
	return mcpclient.Answer{Action: mcpclient.ElicitDecline,
		Reason: "ouro runs headless (-p): nobody is there to answer; run it interactively to fill in the form"}
}
