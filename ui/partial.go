package ui

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
)

// streamEvent is Claude Code's stream_event line (--include-partial-messages): one event
// of the Anthropic Messages streaming protocol, wrapped with the session it belongs to.
type streamEvent struct {
	Type            string  `json:"type"`
	Event           any     `json:"event"`
	SessionID       string  `json:"session_id"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	UUID            string  `json:"uuid"`
}

// The streaming events' shapes, as the Anthropic API sends them.
type (
	rawMessageStart struct {
		Type    string     `json:"type"`
		Message APIMessage `json:"message"`
	}
	rawBlockStart struct {
		Type         string `json:"type"`
		Index        int    `json:"index"`
		ContentBlock any    `json:"content_block"`
	}
	rawBlockDelta struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
		Delta any    `json:"delta"`
	}
	rawBlockStop struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
	}
	rawMessageDelta struct {
		Type  string       `json:"type"`
		Delta rawStopDelta `json:"delta"`
		Usage *llm.Usage   `json:"usage,omitempty"`
	}
	rawStopDelta struct {
		StopReason   *string `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	}
	rawType struct {
		Type string `json:"type"`
	}
	textBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	thinkingBlock struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature,omitempty"`
	}
	toolUseBlock struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	textDelta struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	thinkingDelta struct {
		Type     string `json:"type"`
		Thinking string `json:"thinking"`
	}
	inputJSONDelta struct {
		Type        string `json:"type"`
		PartialJSON string `json:"partial_json"`
	}
)

// partialStream is where one agent (the session's, or a subagent's) is in the message it
// is streaming: whether message_start was written, and the content blocks started so far.
type partialStream struct {
	open   bool
	blocks []partialBlock
}

type partialBlock struct {
	kind string // the block's type: text, thinking, tool_use...
	done bool   // content_block_stop was written
}

// IncludePartialMessages makes stream-json also write the model's answers as they are
// generated (stream_event lines, as Claude Code's --include-partial-messages). model is
// what message_start names before the response says which model answered.
func (h *Headless) IncludePartialMessages(model string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.partial = map[string]*partialStream{}
	h.partialModel = model
}

// observePartial writes the stream_event lines for e, before its message line. parent is
// nil for the session's own agent, else the Task call that started the subagent.
func (h *Headless) observePartial(parent *string, e agent.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.partial == nil {
		return
	}
	key := ""
	if parent != nil {
		key = *parent
	}
	st := h.partial[key]
	if st == nil {
		st = &partialStream{}
		h.partial[key] = st
	}
	emit := func(ev any) {
		h.lineLocked(streamEvent{Type: "stream_event", Event: ev, SessionID: h.sessionID, ParentToolUseID: parent, UUID: uuid.NewString()})
	}
	start := func() {
		if !st.open {
			st.open, st.blocks = true, st.blocks[:0]
			emit(rawMessageStart{Type: "message_start", Message: APIMessage{Type: "message", Role: llm.RoleAssistant,
				Model: h.partialModel, Content: []llm.Block{}, Usage: &llm.Usage{}}})
		}
	}
	closeBlock := func() {
		if n := len(st.blocks); n > 0 && !st.blocks[n-1].done {
			emit(rawBlockStop{Type: "content_block_stop", Index: n - 1})
			st.blocks[n-1].done = true
		}
	}
	switch {
	case e.Type == agent.EventDelta && (e.Delta.Kind == "text" || e.Delta.Kind == "thinking"):
		start()
		if n := len(st.blocks); n == 0 || st.blocks[n-1].done || st.blocks[n-1].kind != e.Delta.Kind {
			closeBlock()
			st.blocks = append(st.blocks, partialBlock{kind: e.Delta.Kind})
			var block any = textBlock{Type: "text"}
			if e.Delta.Kind == "thinking" {
				block = thinkingBlock{Type: "thinking"}
			}
			emit(rawBlockStart{Type: "content_block_start", Index: len(st.blocks) - 1, ContentBlock: block})
		}
		var d any = textDelta{Type: "text_delta", Text: e.Delta.Text}
		if e.Delta.Kind == "thinking" {
			d = thinkingDelta{Type: "thinking_delta", Thinking: e.Delta.Text}
		}
		emit(rawBlockDelta{Type: "content_block_delta", Index: len(st.blocks) - 1, Delta: d})
	case e.Type == agent.EventDelta && e.Delta.Kind == "retry":
		// The provider starts the answer over: what was streamed of it is void, and the
		// next piece opens a new message.
		st.open = false
	case e.Type == agent.EventMessage && e.Message != nil && e.Message.Role == llm.RoleAssistant:
		start()
		closeBlock()
		// The blocks that were not streamed piece by piece (tool calls, and everything
		// when the provider did not stream) are written whole, each as start, delta, stop.
		next, streamed := 0, len(st.blocks)
		for _, b := range e.Message.Content {
			if next < streamed && st.blocks[next].kind == b.Type {
				next++ // streamed already
				continue
			}
			i := len(st.blocks)
			st.blocks = append(st.blocks, partialBlock{kind: b.Type, done: true})
			switch b.Type {
			case llm.BlockText:
				emit(rawBlockStart{Type: "content_block_start", Index: i, ContentBlock: textBlock{Type: "text"}})
				emit(rawBlockDelta{Type: "content_block_delta", Index: i, Delta: textDelta{Type: "text_delta", Text: b.Text}})
			case llm.BlockThinking:
				emit(rawBlockStart{Type: "content_block_start", Index: i, ContentBlock: thinkingBlock{Type: "thinking"}})
				emit(rawBlockDelta{Type: "content_block_delta", Index: i, Delta: thinkingDelta{Type: "thinking_delta", Thinking: b.Thinking}})
			case llm.BlockToolUse:
				emit(rawBlockStart{Type: "content_block_start", Index: i, ContentBlock: toolUseBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: json.RawMessage("{}")}})
				in := string(b.Input)
				if in == "" {
					in = "{}"
				}
				emit(rawBlockDelta{Type: "content_block_delta", Index: i, Delta: inputJSONDelta{Type: "input_json_delta", PartialJSON: in}})
			default:
				emit(rawBlockStart{Type: "content_block_start", Index: i, ContentBlock: b})
			}
			emit(rawBlockStop{Type: "content_block_stop", Index: i})
		}
		md := rawMessageDelta{Type: "message_delta"}
		if r := e.Response; r != nil {
			if r.StopReason != "" {
				stop := r.StopReason
				md.Delta.StopReason = &stop
			}
			u := r.Usage
			md.Usage = &u
		}
		emit(md)
		emit(rawType{Type: "message_stop"})
		st.open = false
	}
}
