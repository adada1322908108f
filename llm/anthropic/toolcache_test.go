package anthropic

import (
	"bytes"
	"encoding/json"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/ouroagent/ouro/llm"
)

// TestToolCacheEncodesAsTheSDK: a tool definition from the cache encodes, inside a
// request, byte for byte as the SDK encodes it built afresh, and a tool whose description
// or schema changes is encoded again.
func TestToolCacheEncodesAsTheSDK(t *testing.T) {
	body := func(p sdk.ToolUnionParam) []byte {
		b, err := json.Marshal(sdk.MessageNewParams{Model: "m", MaxTokens: 1, Tools: []sdk.ToolUnionParam{p}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	spec := llm.ToolSpec{Name: "CacheProbe", Description: "reads <a> & b", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
	for _, s := range []llm.ToolSpec{spec, spec, {Name: spec.Name, Description: "changed", InputSchema: spec.InputSchema},
		{Name: spec.Name, Description: "changed", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: spec.Name}} {
		fresh, err := buildToolParam(s)
		if err != nil {
			t.Fatal(err)
		}
		cached, err := toolParam(s)
		if err != nil {
			t.Fatal(err)
		}
		if want, got := body(fresh), body(cached); !bytes.Equal(want, got) {
			t.Errorf("%+v:\n got %s\nwant %s", s, got, want)
		}
	}
	if _, err := toolParam(llm.ToolSpec{Name: "Bad", InputSchema: json.RawMessage(`[1]`)}); err == nil {
		t.Error("a schema that is not an object was accepted")
	}
}
