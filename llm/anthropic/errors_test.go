package anthropic

import (
	"errors"
	"fmt"
	"io"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/ouroagent/ouro/llm"
)

func TestClassify(t *testing.T) {
	// An error event inside a stream arrives on a 200 response: only its type tells.
	inStream := &sdk.Error{}
	if err := inStream.UnmarshalJSON([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)); err != nil {
		t.Fatal(err)
	}
	inStream.StatusCode = 200

	tooLong := &sdk.Error{}
	if err := tooLong.UnmarshalJSON([]byte(`{"type":"error","error":{"type":"invalid_request_error","message":"Prompt is too long: 210000 tokens > 200000 maximum"}}`)); err != nil {
		t.Fatal(err)
	}
	tooLong.StatusCode = 400

	tests := []struct {
		name   string
		err    error
		kind   string
		status int
	}{
		{"in-stream overloaded", fmt.Errorf("stream: %w", inStream), llm.ErrKindOverloaded, 0},
		{"prompt too long", tooLong, llm.ErrKindPromptTooLong, 400},
		{"unexpected EOF", fmt.Errorf("error reading response body: %w", io.ErrUnexpectedEOF), llm.ErrKindConnection, 0},
		{"stream cut", errStreamCut, llm.ErrKindConnection, 0},
		{"bad stream", fmt.Errorf("%w: index 3", errBadStream), llm.ErrKindConnection, 0},
		{"other", errors.New("error parsing response json: invalid character '<'"), llm.ErrKindInvalid, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := classify(tt.err)
			if e.Kind != tt.kind || e.Status != tt.status || !errors.Is(e, tt.err) || e.Message == "" {
				t.Errorf("classify(%v) = %+v, want kind %s status %d", tt.err, e, tt.kind, tt.status)
			}
		})
	}
}
