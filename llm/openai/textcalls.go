package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/ouroagent/ouro/llm"
)

// Open models on OpenAI-compatible servers often write a tool call as text when the
// server's chat template and the model disagree: Hermes and Qwen as
// <tool_call>{"name": ..., "arguments": {...}}</tool_call>, Llama as
// <|python_tag|>{"name": ..., "parameters": {...}}, Mistral as
// [TOOL_CALLS][{"name": ..., "arguments": {...}}], and small models as the bare JSON of
// the call (the whole answer, or in a code fence). Taken as text, the run would end
// "completed" with nothing done. When an answer has no structured call, such text naming
// a declared tool becomes a real call; the text around it stays.

var (
	hermesCall  = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|$)`)
	llamaCall   = regexp.MustCompile(`(?s)<\|python_tag\|>\s*(\{.*\})\s*(?:<\|eom_id\|>|<\|eot_id\|>)?\s*$`)
	mistralCall = regexp.MustCompile(`(?s)\[TOOL_CALLS\]\s*(\[.*\])\s*$`)
	fencedJSON  = regexp.MustCompile("(?s)^```(?:json)?\\s*(.*?)\\s*```$")
	// anyFence is a fenced block anywhere in an answer (its language tag json or none).
	anyFence = regexp.MustCompile("(?s)```(?:json|JSON)?[ \\t]*\\n(.*?)\\n?[ \\t]*```")
)

// textCallNote is what an answer whose calls were read from its text says of it.
const textCallNote = "[ouro read %d tool call(s) the model wrote as text]"

var textCallNoteRE = regexp.MustCompile(`^\[ouro read \d+ tool call\(s\) the model wrote as text\]$`)

// isTextCallNote reports whether a text block is that note.
func isTextCallNote(s string) bool { return textCallNoteRE.MatchString(s) }

type textCall struct {
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Parameters json.RawMessage `json:"parameters"`
}

// textToolCalls turns tool calls written as text in resp's message into tool_use blocks,
// when the message has none and each names one of tools; it returns how many it made.
func textToolCalls(resp *llm.Response, tools []llm.ToolSpec, idPrefix string) int {
	if resp == nil || len(tools) == 0 || len(resp.Message.ToolUses()) > 0 {
		return 0
	}
	declared := map[string]bool{}
	for _, t := range tools {
		declared[t.Name] = true
	}
	var text strings.Builder
	for _, b := range resp.Message.Content {
		if b.Type == llm.BlockText {
			text.WriteString(b.Text)
		}
	}
	src := text.String()
	var calls []textCall
	rest := src
	wholeCall := true // the calls are written as calls, not found inside other text
	switch {
	case strings.Contains(src, "<tool_call>"):
		for _, m := range hermesCall.FindAllStringSubmatch(src, -1) {
			var c textCall
			if json.Unmarshal([]byte(m[1]), &c) != nil {
				return 0
			}
			calls = append(calls, c)
		}
		rest = hermesCall.ReplaceAllString(src, "")
	case strings.Contains(src, "<|python_tag|>"):
		m := llamaCall.FindStringSubmatch(src)
		var c textCall
		if m == nil || json.Unmarshal([]byte(m[1]), &c) != nil {
			return 0
		}
		calls = []textCall{c}
		rest = src[:strings.Index(src, "<|python_tag|>")]
	case strings.Contains(src, "[TOOL_CALLS]"):
		m := mistralCall.FindStringSubmatch(src)
		if m == nil || json.Unmarshal([]byte(m[1]), &calls) != nil {
			return 0
		}
		rest = src[:strings.Index(src, "[TOOL_CALLS]")]
	default:
		// Small models also answer with nothing but the call's JSON, bare or in a code
		// fence: {"name": "Bash", "arguments": {...}} (or a list of them).
		body := strings.TrimSpace(src)
		if f := fencedJSON.FindStringSubmatch(body); f != nil {
			body = strings.TrimSpace(f[1])
		}
		var c textCall
		switch {
		case strings.HasPrefix(body, "{") && json.Unmarshal([]byte(body), &c) == nil && c.Name != "":
			calls = []textCall{c}
			rest = ""
		case strings.HasPrefix(body, "[") && json.Unmarshal([]byte(body), &calls) == nil && len(calls) > 0:
			rest = ""
		default:
			// Or a fenced call among other text ("```json {"name": "Edit", "arguments":
			// {...}} ``` To verify, run the tests."), as Qwen2.5-Coder 1.5B answered
			// the seed's duration fix: only fences holding a call to a declared tool,
			// with its arguments, count; an example in prose is left alone. (Two
			// fences, the call's and a shell's, also reach here: the first fence's
			// JSON read to the last fence's end is no JSON.)
			calls, rest = fencedCalls(src, declared)
			if len(calls) == 0 {
				return 0
			}
			wholeCall = false
		}
	}
	var blocks []llm.Block
	for i, c := range calls {
		// A call to a tool nobody offered is still a call when it is written as one (in
		// the tags of a call format, or as the whole answer with its arguments): the
		// model is told the tool does not exist and which do, instead of the run ending
		// "completed" on it (Qwen2.5-Coder 1.5B called "Python3"). Anything less
		// call-shaped naming no offered tool stays text.
		if !declared[c.Name] && (c.Name == "" || !wholeCall || len(c.Arguments)+len(c.Parameters) == 0) {
			return 0
		}
		args := c.Arguments
		if len(args) == 0 {
			args = c.Parameters
		}
		if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
			args = json.RawMessage(`{}`)
		}
		// Some models put the arguments in a JSON string.
		var s string
		if json.Unmarshal(args, &s) == nil && json.Valid([]byte(s)) {
			args = json.RawMessage(s)
		}
		blocks = append(blocks, llm.ToolUseBlock(fmt.Sprintf("%s_text%d", idPrefix, i), c.Name, args))
	}
	if len(blocks) == 0 {
		return 0
	}
	var content []llm.Block
	for _, b := range resp.Message.Content {
		if b.Type != llm.BlockText {
			content = append(content, b)
		}
	}
	// Said in the message itself, so the transcript and the audit show it too; the note is
	// a block of its own, which the request leaves out (convertAssistant): a small model
	// shown it as its own words repeats it as its next answer (Qwen2.5-Coder 1.5B did).
	if rest = strings.TrimSpace(rest); rest != "" {
		content = append(content, llm.TextBlock(rest+"\n"))
	}
	content = append(content, llm.TextBlock(fmt.Sprintf(textCallNote, len(blocks))))
	resp.Message.Content = append(content, blocks...)
	resp.StopReason = llm.StopToolUse
	return len(blocks)
}

// fencedCalls are the calls written in fenced blocks of src, each an object (or a list
// of them) naming a declared tool and carrying arguments; rest is src without those
// blocks. A fence that holds anything else stays in rest.
func fencedCalls(src string, declared map[string]bool) (calls []textCall, rest string) {
	var kept strings.Builder
	last := 0
	for _, m := range anyFence.FindAllStringSubmatchIndex(src, -1) {
		body := strings.TrimSpace(src[m[2]:m[3]])
		var found []textCall
		if strings.HasPrefix(body, "[") {
			if json.Unmarshal([]byte(body), &found) != nil {
				continue
			}
		} else {
			var c textCall
			if json.Unmarshal([]byte(body), &c) != nil {
				continue
			}
			found = []textCall{c}
		}
		ok := len(found) > 0
		for _, c := range found {
			ok = ok && declared[c.Name] && (len(c.Arguments) > 0 || len(c.Parameters) > 0)
		}
		if !ok {
			continue
		}
		calls = append(calls, found...)
		kept.WriteString(src[last:m[0]])
		last = m[1]
	}
	kept.WriteString(src[last:])
	return calls, kept.String()
}
