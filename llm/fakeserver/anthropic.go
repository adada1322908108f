package fakeserver

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// anthropicMaxContext is the context window the fake server claims in its
// "prompt is too long" errors, the figure the real API names for Claude models.
const anthropicMaxContext = 200_000

// anthropicTextChunk is how many bytes of text go into one text_delta event.
const anthropicTextChunk = 16

// anthropicRequest is what the fake server reads of a Messages API request. Everything
// else (cache_control, metadata ...) is accepted and ignored, as it does not change what
// the script answers; thinking and its constraints are checked (anthropic_thinking.go).
type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens *int               `json:"max_tokens"`
	System    json.RawMessage    `json:"system"`
	Messages  []anthropicMessage `json:"messages"`
	Tools     []anthropicTool    `json:"tools"`
	Stream    bool               `json:"stream"`
	anthropicThinkingFields
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// The web search server tool's (anthropic_websearch.go).
	AllowedDomains []string `json:"allowed_domains"`
	BlockedDomains []string `json:"blocked_domains"`
	MaxUses        *int     `json:"max_uses"`
}

// anthropicBlock is a content block on the wire: like llm.Block, except that a
// tool_result's content may be a plain string.
type anthropicBlock struct {
	Type      string           `json:"type"`
	Text      string           `json:"text"`
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Input     json.RawMessage  `json:"input"`
	ToolUseID string           `json:"tool_use_id"`
	Content   json.RawMessage  `json:"content"`
	IsError   bool             `json:"is_error"`
	Thinking  string           `json:"thinking"`
	Signature string           `json:"signature"`
	Data      string           `json:"data"`
	Source    *llm.ImageSource `json:"source"`
}

// anthropicAPIError is a request the real API would refuse, with the status and the
// error type it would answer with.
type anthropicAPIError struct {
	status  int
	errType string
	msg     string
}

func (e *anthropicAPIError) Error() string { return e.msg }

func anthropicInvalid(format string, args ...any) *anthropicAPIError {
	return &anthropicAPIError{status: http.StatusBadRequest, errType: "invalid_request_error", msg: fmt.Sprintf(format, args...)}
}

// serveAnthropic answers POST /v1/messages.
func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("request-id", anthropicRequestID())
	body, err := io.ReadAll(r.Body)
	rec := Recorded{Protocol: "anthropic", Path: r.URL.Path, Header: r.Header.Clone(), Body: json.RawMessage(body)}
	if err != nil {
		s.take(rec)
		writeAnthropicError(w, anthropicInvalid("reading the request body: %v", err), 0)
		return
	}
	req, msgs, decodeErr := decodeAnthropicRequest(body)
	rec.Stream = req.Stream
	rec.Messages = msgs
	turn, step := s.take(rec)

	if decodeErr != nil {
		writeAnthropicError(w, decodeErr, 0)
		return
	}
	if turn < 0 {
		writeAnthropicError(w, anthropicInvalid("fakeserver: the script has no turn left (it has %d steps and all were played)", len(s.steps)), 0)
		return
	}
	if err := validateAnthropicRequest(req); err != nil {
		writeAnthropicError(w, err, 0)
		return
	}
	if err := llm.ValidateConversation(msgs); err != nil {
		writeAnthropicError(w, anthropicInvalid("%v", err), 0)
		return
	}
	if err := validateAnthropicThinking(req, msgs); err != nil {
		writeAnthropicError(w, err, 0)
		return
	}
	t := s.script.Turns[turn]
	if err := t.CheckExpect(msgs); err != nil {
		writeAnthropicError(w, anthropicInvalid("script turn %d: %v", turn+1, err), 0)
		return
	}

	ws, wsErr := webSearchOf(req.Tools)
	if wsErr != nil {
		writeAnthropicError(w, wsErr, 0)
		return
	}
	llmReq := &llm.Request{Model: req.Model, System: anthropicSystemText(req.System), Messages: msgs, WebSearch: ws}
	for _, tool := range req.Tools {
		if tool.Type == "" || tool.Type == "custom" {
			llmReq.Tools = append(llmReq.Tools, llm.ToolSpec{Name: tool.Name, Description: tool.Description, InputSchema: tool.InputSchema})
		}
	}
	id := fmt.Sprintf("msg_fake_%03d", step+1)

	if f := t.Fault; f != nil {
		switch {
		case f.PromptTooLong:
			tokens := anthropicMaxContext + scripted.EstimateUsage(llmReq, llm.Message{}).InputTokens
			writeAnthropicError(w, anthropicInvalid("prompt is too long: %d tokens > %d maximum", tokens, anthropicMaxContext), 0)
		case f.CutStream:
			if req.Stream {
				cutAnthropicStream(w, id, req.Model)
			} else {
				cutAnthropicBody(w, id, req.Model)
			}
		case (f.BadFrame || f.Stall) && req.Stream:
			brokenAnthropicStream(w, r, id, req.Model, f.Stall)
		case f.BadFrame || f.Stall:
			cutAnthropicBody(w, id, req.Model)
		default:
			writeAnthropicError(w, anthropicFault(f), f.RetryAfter)
		}
		return
	}

	msg, err := scripted.ServeSearch(s.script.Message(turn), ws)
	if err != nil {
		writeAnthropicError(w, anthropicInvalid("script turn %d: %v", turn+1, err), 0)
		return
	}
	if ws != nil && invalidSearchDomains(ws) {
		msg = refuseSearches(msg)
	}
	usage := scripted.EstimateUsage(llmReq, msg)
	if t.Usage != nil {
		usage = *t.Usage
	}
	if req.Stream {
		streamAnthropic(w, id, req.Model, t, msg, usage)
		return
	}
	out := map[string]any{
		"id":            id,
		"type":          "message",
		"role":          "assistant",
		"model":         req.Model,
		"content":       anthropicContent(msg),
		"stop_reason":   t.StopReasonOf(),
		"stop_sequence": nil,
		"usage":         anthropicUsage(usage, usage.OutputTokens),
	}
	if n := searchCount(msg); n > 0 {
		out["usage"].(map[string]any)["server_tool_use"] = map[string]any{"web_search_requests": n}
	}
	writeAnthropicJSON(w, http.StatusOK, out)
}

// decodeAnthropicRequest parses the body and converts its messages to ouro's model. It
// returns what it could decode even on error, so the request is recorded usefully.
func decodeAnthropicRequest(body []byte) (anthropicRequest, []llm.Message, *anthropicAPIError) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return req, nil, anthropicInvalid("the request body is not valid JSON: %v", err)
	}
	msgs := make([]llm.Message, 0, len(req.Messages))
	for i, m := range req.Messages {
		blocks, err := decodeAnthropicContent(m.Content, fmt.Sprintf("messages.%d.content", i))
		if err != nil {
			return req, msgs, err
		}
		msgs = append(msgs, llm.Message{Role: llm.Role(m.Role), Content: blocks})
	}
	if len(req.System) > 0 && !bytes.Equal(req.System, []byte("null")) {
		blocks, err := decodeAnthropicContent(req.System, "system")
		if err != nil {
			return req, msgs, err
		}
		for j, b := range blocks {
			if b.Type != llm.BlockText {
				return req, msgs, anthropicInvalid("system.%d.type: the system prompt takes text blocks, not %s", j, b.Type)
			}
		}
	}
	return req, msgs, nil
}

// decodeAnthropicContent decodes content given as a string or as an array of blocks.
func decodeAnthropicContent(raw json.RawMessage, path string) ([]llm.Block, *anthropicAPIError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, anthropicInvalid("%s: Field required", path)
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, anthropicInvalid("%s: %v", path, err)
		}
		return []llm.Block{llm.TextBlock(s)}, nil
	}
	var wire []anthropicBlock
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, anthropicInvalid("%s: Input should be a valid string or a list of content blocks: %v", path, err)
	}
	out := make([]llm.Block, 0, len(wire))
	for j, wb := range wire {
		b, err := wb.toLLM(fmt.Sprintf("%s.%d", path, j))
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func (wb anthropicBlock) toLLM(path string) (llm.Block, *anthropicAPIError) {
	switch wb.Type {
	case llm.BlockText:
		return llm.TextBlock(wb.Text), nil
	case llm.BlockToolUse:
		return llm.ToolUseBlock(wb.ID, wb.Name, wb.Input), nil
	case llm.BlockToolResult:
		b := llm.Block{Type: llm.BlockToolResult, ToolUseID: wb.ToolUseID, IsError: wb.IsError}
		if len(bytes.TrimSpace(wb.Content)) > 0 {
			content, err := decodeAnthropicContent(wb.Content, path+".content")
			if err != nil {
				return llm.Block{}, err
			}
			for _, c := range content {
				if c.Type != llm.BlockText && c.Type != llm.BlockImage {
					return llm.Block{}, anthropicInvalid("%s.content: a tool_result may hold text and image blocks, not %s", path, c.Type)
				}
			}
			b.Content = content
		}
		return b, nil
	case llm.BlockThinking:
		return llm.Block{Type: llm.BlockThinking, Thinking: wb.Thinking, Signature: wb.Signature}, nil
	case llm.BlockRedactedThinking:
		return llm.Block{Type: llm.BlockRedactedThinking, Data: wb.Data}, nil
	case llm.BlockServerToolUse, llm.BlockWebSearchResult:
		return decodeServerBlock(wb, path)
	case llm.BlockImage:
		if wb.Source == nil || wb.Source.Data == "" || wb.Source.MediaType == "" {
			return llm.Block{}, anthropicInvalid("%s.source: an image needs a source with media_type and data", path)
		}
		src := *wb.Source
		return llm.Block{Type: llm.BlockImage, Source: &src}, nil
	default:
		return llm.Block{}, anthropicInvalid("%s.type: unknown content block type %q", path, wb.Type)
	}
}

// validateAnthropicRequest checks the fields the real API requires.
func validateAnthropicRequest(req anthropicRequest) *anthropicAPIError {
	switch {
	case req.Model == "":
		return anthropicInvalid("model: Field required")
	case req.MaxTokens == nil:
		return anthropicInvalid("max_tokens: Field required")
	case *req.MaxTokens < 0:
		return anthropicInvalid("max_tokens: Input should be greater than or equal to 0")
	case req.Messages == nil:
		return anthropicInvalid("messages: Field required")
	}
	for i, t := range req.Tools {
		if t.Name == "" {
			return anthropicInvalid("tools.%d.name: Field required", i)
		}
		if (t.Type == "" || t.Type == "custom") && len(t.InputSchema) == 0 {
			return anthropicInvalid("tools.%d.input_schema: Field required", i)
		}
	}
	return nil
}

// anthropicSystemText flattens the system prompt (a string or text blocks).
func anthropicSystemText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	blocks, err := decodeAnthropicContent(raw, "system")
	if err != nil {
		return ""
	}
	return llm.Message{Content: blocks}.Text()
}

// anthropicFault maps an injected HTTP fault onto the error type the real API uses for
// that status.
func anthropicFault(f *scripted.Fault) *anthropicAPIError {
	msg := f.Message
	if msg == "" {
		msg = fmt.Sprintf("scripted fault %d", f.Status)
	}
	var typ string
	switch {
	case f.Status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case f.Status == 529:
		typ = "overloaded_error"
	case f.Status >= 500:
		typ = "api_error"
	case f.Status == http.StatusUnauthorized:
		typ = "authentication_error"
	case f.Status == http.StatusForbidden:
		typ = "permission_error"
	case f.Status == http.StatusNotFound:
		typ = "not_found_error"
	case f.Status == http.StatusRequestEntityTooLarge:
		typ = "request_too_large"
	default:
		typ = "invalid_request_error"
	}
	return &anthropicAPIError{status: f.Status, errType: typ, msg: msg}
}

func writeAnthropicError(w http.ResponseWriter, e *anthropicAPIError, retryAfter float64) {
	if retryAfter > 0 {
		w.Header().Set("retry-after", fmt.Sprint(retryAfter))
	}
	writeAnthropicJSON(w, e.status, map[string]any{
		"type":  "error",
		"error": map[string]any{"type": e.errType, "message": e.msg},
	})
}

// anthropicMarshal encodes as the real API does, leaving <, > and & unescaped.
func anthropicMarshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func writeAnthropicJSON(w http.ResponseWriter, status int, v any) {
	data, err := anthropicMarshal(v)
	if err != nil {
		// Only values built above are marshalled; failing here is a bug in this file.
		panic(fmt.Sprintf("fakeserver: marshal response: %v", err))
	}
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func anthropicRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "req_fake_" + hex.EncodeToString(b[:])
}

func anthropicUsage(u llm.Usage, outputTokens int) map[string]any {
	return map[string]any{
		"input_tokens":                u.InputTokens,
		"output_tokens":               outputTokens,
		"cache_creation_input_tokens": u.CacheCreationInputTokens,
		"cache_read_input_tokens":     u.CacheReadInputTokens,
	}
}

// anthropicContent renders the assistant message's blocks as a non-streaming response
// carries them. A call cut off mid-input (partial_input) has no JSON value to send, so
// its input is the empty object there; the streaming path sends the raw partial text.
func anthropicContent(msg llm.Message) []map[string]any {
	out := make([]map[string]any, 0, len(msg.Content))
	var search *llm.Block // the last search result, which a text after it cites
	for _, b := range msg.Content {
		switch b.Type {
		case llm.BlockThinking:
			out = append(out, map[string]any{"type": "thinking", "thinking": b.Thinking, "signature": b.Signature})
		case llm.BlockRedactedThinking:
			out = append(out, map[string]any{"type": "redacted_thinking", "data": b.Data})
		case llm.BlockServerToolUse:
			out = append(out, map[string]any{"type": b.Type, "id": b.ID, "name": b.Name, "input": b.Input})
		case llm.BlockWebSearchResult:
			out = append(out, webSearchResultWire(b))
			search = &b
		case llm.BlockText:
			tb := map[string]any{"type": "text", "text": b.Text}
			if c := citationOf(search, b.Text); c != nil {
				tb["citations"] = []any{c}
			}
			out = append(out, tb)
		case llm.BlockToolUse:
			input := b.Input
			if !json.Valid(input) {
				input = json.RawMessage(`{}`)
			}
			out = append(out, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": input})
		}
	}
	return out
}

// anthropicSSE writes server-sent events and flushes after each, as the real API does.
type anthropicSSE struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func newAnthropicSSE(w http.ResponseWriter) *anthropicSSE {
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &anthropicSSE{w: w, rc: http.NewResponseController(w)}
}

// event writes one event; a write error means the client went away, which the caller
// notices on the next write or ignores at the end.
func (s *anthropicSSE) event(name string, data map[string]any) error {
	data["type"] = name
	payload, err := anthropicMarshal(data)
	if err != nil {
		return fmt.Errorf("marshal %s event: %w", name, err)
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, payload); err != nil {
		return fmt.Errorf("write %s event: %w", name, err)
	}
	if err := s.rc.Flush(); err != nil {
		return fmt.Errorf("flush %s event: %w", name, err)
	}
	return nil
}

func anthropicStartMessage(id, model string, u llm.Usage) map[string]any {
	return map[string]any{"message": map[string]any{
		"id":            id,
		"type":          "message",
		"role":          "assistant",
		"model":         model,
		"content":       []any{},
		"stop_reason":   nil,
		"stop_sequence": nil,
		"usage":         anthropicUsage(u, 1),
	}}
}

// anthropicBlockEvents is the stream of one content block: its start and its deltas.
func anthropicBlockEvents(b llm.Block, raw string) (start map[string]any, deltas []map[string]any) {
	switch b.Type {
	case llm.BlockThinking:
		start = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
		for _, c := range scripted.Chunks(b.Thinking, anthropicTextChunk) {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": c})
		}
		deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": b.Signature})
	case llm.BlockRedactedThinking:
		start = map[string]any{"type": "redacted_thinking", "data": b.Data}
	case llm.BlockText:
		start = map[string]any{"type": "text", "text": ""}
		for _, c := range scripted.Chunks(b.Text, anthropicTextChunk) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": c})
		}
	case llm.BlockWebSearchResult:
		start = webSearchResultWire(b) // sent whole, with no deltas
	case llm.BlockToolUse, llm.BlockServerToolUse:
		start = map[string]any{"type": b.Type, "id": b.ID, "name": b.Name, "input": map[string]any{}}
		// The real API opens with an empty piece, then sends the input in several.
		deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": ""})
		for _, c := range scripted.Chunks(raw, max(1, (len(raw)+2)/3)) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": c})
		}
	}
	return start, deltas
}

// streamAnthropic plays a normal turn as the real API streams it.
func streamAnthropic(w http.ResponseWriter, id, model string, t scripted.Turn, msg llm.Message, u llm.Usage) {
	sse := newAnthropicSSE(w)
	if sse.event("message_start", anthropicStartMessage(id, model, u)) != nil {
		return
	}
	if sse.event("ping", map[string]any{}) != nil {
		return
	}
	var search *llm.Block // the last search result, which a text after it cites
	for i, b := range msg.Content {
		start, deltas := anthropicBlockEvents(b, string(b.Input))
		switch b.Type {
		case llm.BlockWebSearchResult:
			search = &b
		case llm.BlockText:
			if c := citationOf(search, b.Text); c != nil {
				// The citation comes before the text it cites, as in the real stream.
				deltas = append([]map[string]any{{"type": "citations_delta", "citation": c}}, deltas...)
			}
		}
		if sse.event("content_block_start", map[string]any{"index": i, "content_block": start}) != nil {
			return
		}
		for _, d := range deltas {
			if sse.event("content_block_delta", map[string]any{"index": i, "delta": d}) != nil {
				return
			}
		}
		if sse.event("content_block_stop", map[string]any{"index": i}) != nil {
			return
		}
	}
	final := map[string]any{"output_tokens": u.OutputTokens}
	if n := searchCount(msg); n > 0 {
		final["server_tool_use"] = map[string]any{"web_search_requests": n}
	}
	if sse.event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": t.StopReasonOf(), "stop_sequence": nil},
		"usage": final,
	}) != nil {
		return
	}
	_ = sse.event("message_stop", map[string]any{})
}

// anthropicCutText is what a cut_stream fault starts to say before the connection drops.
const anthropicCutText = "This answer is cut off before it ends, as a dropped connection would leave it."

// cutAnthropicStream starts a streamed answer, sends part of its first block and drops
// the connection.
func cutAnthropicStream(w http.ResponseWriter, id, model string) {
	sse := newAnthropicSSE(w)
	_ = sse.event("message_start", anthropicStartMessage(id, model, llm.Usage{InputTokens: 1}))
	_ = sse.event("ping", map[string]any{})
	start, deltas := anthropicBlockEvents(llm.TextBlock(anthropicCutText), "")
	_ = sse.event("content_block_start", map[string]any{"index": 0, "content_block": start})
	for _, d := range deltas[:len(deltas)/2] {
		_ = sse.event("content_block_delta", map[string]any{"index": 0, "delta": d})
	}
	// ErrAbortHandler makes net/http close the connection without ending the response.
	panic(http.ErrAbortHandler)
}

// brokenAnthropicStream starts a streamed answer and its first delta, then either sends a
// frame whose data is not JSON and ends, or (stall) keeps the connection open and silent
// until the client leaves.
func brokenAnthropicStream(w http.ResponseWriter, r *http.Request, id, model string, stall bool) {
	sse := newAnthropicSSE(w)
	_ = sse.event("message_start", anthropicStartMessage(id, model, llm.Usage{InputTokens: 1}))
	start, deltas := anthropicBlockEvents(llm.TextBlock(anthropicCutText), "")
	_ = sse.event("content_block_start", map[string]any{"index": 0, "content_block": start})
	_ = sse.event("content_block_delta", map[string]any{"index": 0, "delta": deltas[0]})
	if stall {
		<-r.Context().Done()
		return
	}
	fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\n\n")
	_ = sse.rc.Flush()
}

// cutAnthropicBody sends the first part of a JSON answer and drops the connection.
func cutAnthropicBody(w http.ResponseWriter, id, model string) {
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, `{"id":%q,"type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"This answer is cut`, id, model)
	_ = http.NewResponseController(w).Flush()
	panic(http.ErrAbortHandler)
}
