package fakeserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// openaiTextChunk is the size of a streamed content or reasoning piece; openaiArgsChunk
// the size of a streamed tool-call arguments piece, small so that even short inputs are
// split over several deltas as the real API does.
const (
	openaiTextChunk = 16
	openaiArgsChunk = 8
)

// openaiCutText is what a cut_stream fault delivers before the connection drops.
const openaiCutText = "This answer is cut off before it ends, as a dropped connection would leave it."

// openaiRequest is the part of a Chat Completions request the fake server reads.
type openaiRequest struct {
	Model         string          `json:"model"`
	Messages      []openaiMessage `json:"messages"`
	Tools         []openaiTool    `json:"tools"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int `json:"max_tokens"`
	MaxCompletionTokens *int `json:"max_completion_tokens"`
}

type openaiMessage struct {
	Role string `json:"role"`
	// Content is a string, an array of content parts, or null.
	Content    json.RawMessage  `json:"content"`
	Refusal    *string          `json:"refusal"`
	ToolCalls  []openaiToolCall `json:"tool_calls"`
	ToolCallID string           `json:"tool_call_id"`
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type openaiTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type openaiContentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Refusal  string `json:"refusal"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// openaiAPIError is an error answer in the OpenAI shape.
type openaiAPIError struct {
	status  int
	typ     string
	code    string // "" is sent as null
	param   string // "" is sent as null
	message string
}

func openaiInvalid(param, format string, args ...any) *openaiAPIError {
	return &openaiAPIError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, message: fmt.Sprintf(format, args...)}
}

func (s *Server) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	rec := Recorded{Protocol: "openai", Path: r.URL.Path, Header: r.Header.Clone(), Body: json.RawMessage(body)}
	if err != nil {
		s.take(rec)
		writeOpenAIError(w, openaiInvalid("", "reading the request body: %v", err), 0)
		return
	}
	var req openaiRequest
	var msgs []llm.Message
	var reqErr *openaiAPIError
	if err := json.Unmarshal(body, &req); err != nil {
		reqErr = openaiInvalid("", "We could not parse the JSON body of your request: %v", err)
	} else {
		msgs, reqErr = openaiToMessages(req.Messages)
	}
	rec.Stream = req.Stream
	rec.Messages = msgs
	turn, step := s.take(rec)
	w.Header().Set("x-request-id", fmt.Sprintf("req_fake_%03d", step+1))

	if reqErr == nil && turn < 0 {
		reqErr = openaiInvalid("", "fakeserver: the script has no turn left (it has %d steps and all were played)", len(s.steps))
	}
	if reqErr == nil {
		reqErr = validateOpenAIRequest(&req)
	}
	if reqErr == nil {
		if err := llm.ValidateConversation(msgs); err != nil {
			reqErr = openaiInvalid("messages", "%v", err)
		}
	}
	if reqErr != nil {
		writeOpenAIError(w, reqErr, 0)
		return
	}
	t := s.script.Turns[turn]
	if err := t.CheckExpect(msgs); err != nil {
		writeOpenAIError(w, openaiInvalid("", "fakeserver: script turn %d: %v", turn+1, err), 0)
		return
	}

	llmReq := &llm.Request{Model: req.Model, System: openaiSystemText(req.Messages), Messages: msgs}
	for _, tool := range req.Tools {
		llmReq.Tools = append(llmReq.Tools, llm.ToolSpec{Name: tool.Function.Name, Description: tool.Function.Description, InputSchema: tool.Function.Parameters})
	}
	id := fmt.Sprintf("chatcmpl-fake%03d", step+1)
	out := openaiOutput{id: id, model: req.Model, created: time.Now().Unix(), includeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage}

	if f := t.Fault; f != nil {
		switch {
		case f.PromptTooLong:
			window := llm.LookupModel(req.Model).ContextWindow
			tokens := window + scripted.EstimateUsage(llmReq, llm.Message{}).InputTokens
			e := openaiInvalid("messages", "This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", window, tokens)
			e.code = "context_length_exceeded"
			writeOpenAIError(w, e, 0)
		case f.CutStream:
			if req.Stream {
				out.cutStream(w)
			} else {
				out.cutBody(w)
			}
		case (f.BadFrame || f.Stall) && req.Stream:
			out.brokenStream(w, r, f.Stall)
		case f.BadFrame || f.Stall:
			out.cutBody(w)
		default:
			writeOpenAIError(w, openaiFault(f), f.RetryAfter)
		}
		return
	}

	msg := s.script.Message(turn)
	var usage llm.Usage
	if t.Usage != nil {
		usage = *t.Usage
	} else {
		usage = scripted.EstimateUsage(llmReq, msg)
	}
	if req.Stream {
		out.stream(w, msg, t.StopReasonOf(), usage)
		return
	}
	writeOpenAIJSON(w, http.StatusOK, out.completion(msg, t.StopReasonOf(), usage))
}

// openaiToMessages converts the Chat Completions messages to ouro's model: system and
// developer messages are left out, tool messages become tool_result blocks of a user
// message (consecutive ones and the user message right after them share it, results
// first), and an assistant's tool_calls become tool_use blocks after its text. It returns
// what it converted even on error, so the request is recorded usefully.
func openaiToMessages(in []openaiMessage) ([]llm.Message, *openaiAPIError) {
	var out []llm.Message
	// open is true while the last message was started by tool messages and may still take
	// more results or the user message that follows them.
	open := false
	for i, m := range in {
		path := fmt.Sprintf("messages[%d]", i)
		switch m.Role {
		case "system", "developer":
			if _, err := openaiText(m.Content, path); err != nil {
				return out, err
			}
			open = false
		case "user":
			blocks, err := openaiUserContent(m.Content, path)
			if err != nil {
				return out, err
			}
			if open {
				last := &out[len(out)-1]
				last.Content = append(last.Content, blocks...)
			} else {
				out = append(out, llm.Message{Role: llm.RoleUser, Content: blocks})
			}
			open = false
		case "assistant":
			msg := llm.Message{Role: llm.RoleAssistant}
			text, err := openaiAssistantText(m.Content, path)
			if err != nil {
				return out, err
			}
			if text != "" {
				msg.Content = append(msg.Content, llm.TextBlock(text))
			}
			if m.Refusal != nil && *m.Refusal != "" {
				msg.Content = append(msg.Content, llm.TextBlock(*m.Refusal))
			}
			for j, c := range m.ToolCalls {
				if c.Type != "" && c.Type != "function" {
					return out, openaiInvalid(fmt.Sprintf("%s.tool_calls[%d].type", path, j), "Invalid value: '%s'. Supported values are: 'function'.", c.Type)
				}
				if c.ID == "" {
					return out, openaiInvalid(fmt.Sprintf("%s.tool_calls[%d].id", path, j), "Missing required parameter: '%s.tool_calls[%d].id'.", path, j)
				}
				args := c.Function.Arguments
				if args == "" {
					args = "{}"
				}
				msg.Content = append(msg.Content, llm.ToolUseBlock(c.ID, c.Function.Name, json.RawMessage(args)))
			}
			open = false
			if len(msg.Content) == 0 && openaiHasContent(m.Content) {
				// This API accepts an empty answer ("") in the history, which ouro's model
				// cannot hold (no empty text blocks): it carries nothing, so it is left
				// out. Null content without tool calls stays an error, as on the real API.
				continue
			}
			out = append(out, msg)
		case "tool":
			if m.ToolCallID == "" {
				return out, openaiInvalid(path+".tool_call_id", "Missing required parameter: '%s.tool_call_id'.", path)
			}
			text, err := openaiText(m.Content, path)
			if err != nil {
				return out, err
			}
			result := llm.ToolResultBlock(m.ToolCallID, text, false)
			if open {
				last := &out[len(out)-1]
				last.Content = append(last.Content, result)
			} else {
				out = append(out, llm.Message{Role: llm.RoleUser, Content: []llm.Block{result}})
				open = true
			}
		default:
			return out, openaiInvalid(path+".role", "Invalid value: '%s'. Supported values are: 'system', 'developer', 'user', 'assistant' and 'tool'.", m.Role)
		}
	}
	return out, nil
}

// openaiHasContent reports whether content was given at all (not missing or null).
func openaiHasContent(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// openaiText reads content that may only hold text: a string, text parts, or null.
func openaiText(raw json.RawMessage, path string) (string, *openaiAPIError) {
	return openaiTextParts(raw, path, false)
}

// openaiAssistantText reads an assistant's content, whose parts may also be refusals.
func openaiAssistantText(raw json.RawMessage, path string) (string, *openaiAPIError) {
	return openaiTextParts(raw, path, true)
}

func openaiTextParts(raw json.RawMessage, path string, refusals bool) (string, *openaiAPIError) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []openaiContentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", openaiInvalid(path+".content", "Invalid type for '%s.content': expected a string or an array of content parts.", path)
	}
	var sb strings.Builder
	for j, p := range parts {
		switch {
		case p.Type == "text":
			sb.WriteString(p.Text)
		case p.Type == "refusal" && refusals:
			sb.WriteString(p.Refusal)
		default:
			return "", openaiInvalid(fmt.Sprintf("%s.content[%d].type", path, j), "Invalid value: '%s'. Supported values are: 'text'.", p.Type)
		}
	}
	return sb.String(), nil
}

// openaiUserContent reads a user message's content: text and image_url parts.
func openaiUserContent(raw json.RawMessage, path string) ([]llm.Block, *openaiAPIError) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []llm.Block{llm.TextBlock(s)}, nil
	}
	var parts []openaiContentPart
	if err := json.Unmarshal(raw, &parts); err != nil || len(raw) == 0 || string(raw) == "null" {
		return nil, openaiInvalid(path+".content", "Invalid type for '%s.content': expected a string or an array of content parts.", path)
	}
	var blocks []llm.Block
	for j, p := range parts {
		switch p.Type {
		case "text":
			blocks = append(blocks, llm.TextBlock(p.Text))
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return nil, openaiInvalid(fmt.Sprintf("%s.content[%d].image_url", path, j), "Missing required parameter: '%s.content[%d].image_url.url'.", path, j)
			}
			blocks = append(blocks, llm.Block{Type: llm.BlockImage, Source: openaiImageSource(p.ImageURL.URL)})
		default:
			return nil, openaiInvalid(fmt.Sprintf("%s.content[%d].type", path, j), "Invalid value: '%s'. Supported values are: 'text' and 'image_url'.", p.Type)
		}
	}
	return blocks, nil
}

// openaiImageSource decodes a data URL into an inline image; any other URL is kept in
// Data with Type "url" so the recording still shows it.
func openaiImageSource(u string) *llm.ImageSource {
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		if meta, data, ok := strings.Cut(rest, ","); ok {
			if media, ok := strings.CutSuffix(meta, ";base64"); ok {
				return &llm.ImageSource{Type: "base64", MediaType: media, Data: data}
			}
		}
	}
	return &llm.ImageSource{Type: "url", Data: u}
}

// openaiSystemText joins the system and developer messages, for usage estimates.
func openaiSystemText(msgs []openaiMessage) string {
	var parts []string
	for i, m := range msgs {
		if m.Role == "system" || m.Role == "developer" {
			if s, err := openaiText(m.Content, fmt.Sprintf("messages[%d]", i)); err == nil && s != "" {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// validateOpenAIRequest checks the request fields the real API insists on.
func validateOpenAIRequest(req *openaiRequest) *openaiAPIError {
	if req.Model == "" {
		return openaiInvalid("model", "you must provide a model parameter")
	}
	if len(req.Messages) == 0 {
		return openaiInvalid("messages", "Missing required parameter: 'messages'.")
	}
	if req.StreamOptions != nil && !req.Stream {
		return openaiInvalid("stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled.")
	}
	if req.MaxTokens != nil && *req.MaxTokens < 1 {
		return openaiInvalid("max_tokens", "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got %d instead.", *req.MaxTokens)
	}
	if req.MaxCompletionTokens != nil && *req.MaxCompletionTokens < 1 {
		return openaiInvalid("max_completion_tokens", "Invalid 'max_completion_tokens': integer below minimum value. Expected a value >= 1, but got %d instead.", *req.MaxCompletionTokens)
	}
	for i, t := range req.Tools {
		if t.Type != "function" {
			return openaiInvalid(fmt.Sprintf("tools[%d].type", i), "Invalid value: '%s'. Supported values are: 'function'.", t.Type)
		}
		if t.Function.Name == "" {
			return openaiInvalid(fmt.Sprintf("tools[%d].function.name", i), "Missing required parameter: 'tools[%d].function.name'.", i)
		}
		if len(t.Function.Parameters) > 0 && !json.Valid(t.Function.Parameters) {
			return openaiInvalid(fmt.Sprintf("tools[%d].function.parameters", i), "Invalid 'tools[%d].function.parameters': not valid JSON.", i)
		}
	}
	return nil
}

// openaiFault is the error a status fault answers with, typed as OpenAI types it.
func openaiFault(f *scripted.Fault) *openaiAPIError {
	e := &openaiAPIError{status: f.Status, message: f.Message}
	switch {
	case f.Status == http.StatusTooManyRequests:
		e.typ, e.code = "requests", "rate_limit_exceeded"
		if e.message == "" {
			e.message = "Rate limit reached for requests. Please try again later."
		}
	case f.Status >= 500:
		e.typ = "server_error"
		if e.message == "" {
			e.message = "The server had an error while processing your request. Sorry about that!"
		}
	case f.Status == http.StatusUnauthorized:
		e.typ, e.code = "invalid_request_error", "invalid_api_key"
		if e.message == "" {
			e.message = "Incorrect API key provided."
		}
	default:
		e.typ = "invalid_request_error"
		if e.message == "" {
			e.message = fmt.Sprintf("scripted fault %d", f.Status)
		}
	}
	return e
}

func writeOpenAIError(w http.ResponseWriter, e *openaiAPIError, retryAfter float64) {
	if retryAfter > 0 {
		w.Header().Set("retry-after", strconv.FormatFloat(retryAfter, 'f', -1, 64))
	}
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	writeOpenAIJSON(w, e.status, map[string]any{"error": map[string]any{
		"message": e.message,
		"type":    e.typ,
		"param":   nullable(e.param),
		"code":    nullable(e.code),
	}})
}

func writeOpenAIJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "fakeserver: encoding the response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("content-type", "application/json")
	w.Header().Set("content-length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
