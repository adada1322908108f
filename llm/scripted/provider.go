package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/ouroagent/ouro/llm"
)

// Provider answers requests from a script, in order. It is safe for concurrent use; each
// request takes the next step.
type Provider struct {
	script *Script
	steps  []int

	mu       sync.Mutex
	next     int
	requests []llm.Request
}

// New returns a provider playing s. It panics if s is invalid, since a Go-value script is
// program text; use Parse or Load for scripts from users.
func New(s *Script) *Provider {
	if err := s.Validate(); err != nil {
		panic("scripted: " + err.Error())
	}
	return &Provider{script: s, steps: s.Steps()}
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "scripted" }

// Requests returns copies of the requests received so far.
func (p *Provider) Requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.Request(nil), p.requests...)
}

// Remaining reports how many steps have not been played.
func (p *Provider) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.steps) - p.next
}

// Complete implements llm.Provider.
func (p *Provider) Complete(ctx context.Context, req *llm.Request, onDelta llm.StreamFunc) (*llm.Response, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.requests = append(p.requests, cloneRequest(req))
	if p.next >= len(p.steps) {
		n := len(p.steps)
		p.mu.Unlock()
		return nil, &llm.Error{Kind: llm.ErrKindInvalid, Status: 400,
			Message: fmt.Sprintf("scripted model: the script has no turn left (it has %d steps and all were played)", n)}
	}
	step := p.next
	i := p.steps[step]
	p.next++
	p.mu.Unlock()

	if err := llm.ValidateConversation(req.Messages); err != nil {
		return nil, &llm.Error{Kind: llm.ErrKindInvalid, Status: 400, Message: err.Error()}
	}
	t := p.script.Turns[i]
	if err := t.CheckExpect(req.Messages); err != nil {
		return nil, &llm.Error{Kind: llm.ErrKindInvalid, Status: 400, Message: fmt.Sprintf("turn %d: %v", i+1, err)}
	}
	if f := t.Fault; f != nil {
		return nil, FaultError(f)
	}
	msg, err := ServeSearch(p.script.Message(i), req.WebSearch)
	if err != nil {
		return nil, &llm.Error{Kind: llm.ErrKindInvalid, Status: 400, Message: fmt.Sprintf("turn %d: %v", i+1, err)}
	}
	if onDelta != nil {
		for _, b := range msg.Content {
			switch b.Type {
			case llm.BlockThinking:
				onDelta(llm.Delta{Kind: "thinking", Text: b.Thinking})
			case llm.BlockText:
				for _, chunk := range Chunks(b.Text, 16) {
					onDelta(llm.Delta{Kind: "text", Text: chunk})
				}
			}
		}
	}
	var usage llm.Usage
	if t.Usage != nil {
		usage = *t.Usage
	} else {
		usage = EstimateUsage(req, msg)
		for _, b := range msg.Content {
			if b.Type == llm.BlockServerToolUse {
				usage.ServerToolUse.WebSearchRequests++
			}
		}
	}
	return &llm.Response{
		ID:         fmt.Sprintf("msg_scripted_%03d", step+1),
		Model:      req.Model,
		Message:    msg,
		StopReason: t.StopReasonOf(),
		Usage:      usage,
		Duration:   time.Since(start),
	}, nil
}

// FaultError is the error a fault turn produces without HTTP in between.
func FaultError(f *Fault) error {
	switch {
	case f.PromptTooLong:
		return &llm.Error{Kind: llm.ErrKindPromptTooLong, Status: 400, Message: "prompt is too long"}
	case f.CutStream:
		return &llm.Error{Kind: llm.ErrKindConnection, Message: "stream cut mid-way (scripted fault)"}
	case f.BadFrame:
		return &llm.Error{Kind: llm.ErrKindConnection, Message: "malformed stream frame (scripted fault)"}
	case f.Stall:
		return &llm.Error{Kind: llm.ErrKindConnection, Message: "the stream went quiet (scripted fault)"}
	}
	msg := f.Message
	if msg == "" {
		msg = fmt.Sprintf("scripted fault %d", f.Status)
	}
	return &llm.Error{Kind: llm.KindForStatus(f.Status), Status: f.Status, Message: msg}
}

// Chunks splits s into pieces of about n bytes on rune boundaries, as a stream would.
// An n below 1 is taken as 1.
func Chunks(s string, n int) []string {
	n = max(n, 1)
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && k > 0 && (s[k]&0xC0) == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// EstimateUsage approximates token counts at four bytes a token.
func EstimateUsage(req *llm.Request, msg llm.Message) llm.Usage {
	in, _ := json.Marshal(req.Messages)
	tools, _ := json.Marshal(req.Tools)
	out, _ := json.Marshal(msg.Content)
	return llm.Usage{
		InputTokens:  (len(in)+len(tools)+len(req.System))/4 + 1,
		OutputTokens: len(out)/4 + 1,
	}
}

func cloneRequest(r *llm.Request) llm.Request {
	c := *r
	c.Messages = append([]llm.Message(nil), r.Messages...)
	c.Tools = append([]llm.ToolSpec(nil), r.Tools...)
	return c
}
