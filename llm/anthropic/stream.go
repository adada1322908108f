package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/ouroagent/ouro/llm"
)

// errStreamCut is a stream that ended without message_stop: the connection closed
// cleanly but the answer is incomplete.
var errStreamCut = errors.New("the stream ended before message_stop")

// errBadStream marks a stream whose events do not fit together; restarting the request
// is the only remedy, as for a cut stream.
var errBadStream = errors.New("malformed stream")

// stream makes one streamed request and accumulates the answer, passing text and
// thinking deltas to onDelta as they arrive.
func (p *Provider) stream(ctx context.Context, params sdk.MessageNewParams, onDelta llm.StreamFunc, delivered *bool, auth ...option.RequestOption) (*sdk.Message, error) {
	sctx, watch, stop := llm.WatchIdle(ctx, p.cfg.StreamFirst, p.cfg.StreamIdle)
	defer stop()
	st := p.messages.NewStreaming(sctx, params, auth...)
	defer st.Close()

	var msg sdk.Message
	// Accumulate replaces a tool input that is not valid JSON with {} when its block
	// stops, which would hide a call cut off by max_tokens; the raw pieces are kept here.
	inputs := map[int64]*strings.Builder{}
	stopped := false
	for st.Next() {
		watch.Touch()
		ev := st.Current()
		if err := msg.Accumulate(ev); err != nil {
			return nil, fmt.Errorf("%w: %w", errBadStream, err)
		}
		switch ev.Type {
		case "content_block_delta":
			d := ev.Delta
			switch d.Type {
			case "text_delta":
				if onDelta != nil && d.Text != "" {
					onDelta(llm.Delta{Kind: "text", Text: d.Text})
					*delivered = true
				}
			case "thinking_delta":
				if onDelta != nil && d.Thinking != "" {
					onDelta(llm.Delta{Kind: "thinking", Text: d.Thinking})
					*delivered = true
				}
			case "input_json_delta":
				sb := inputs[ev.Index]
				if sb == nil {
					sb = &strings.Builder{}
					inputs[ev.Index] = sb
				}
				sb.WriteString(d.PartialJSON)
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := st.Err(); err != nil {
		if err := watch.Cause(sctx, err); errors.Is(err, llm.ErrStreamIdle) {
			return nil, err
		}
		var apiErr *sdk.Error
		if !errors.As(err, &apiErr) && isJSONError(err) {
			// A frame whose data is not JSON: the stream broke, the request did not.
			return nil, fmt.Errorf("%w: %w", errBadStream, err)
		}
		return nil, err
	}
	if !stopped {
		return nil, errStreamCut
	}
	for i, sb := range inputs {
		if raw := strings.TrimSpace(sb.String()); raw != "" && int(i) < len(msg.Content) {
			msg.Content[i].Input = json.RawMessage(raw)
		}
	}
	return &msg, nil
}
