package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

// BenchmarkDispatch measures what every call costs on top of the tool itself: lookup,
// schema validation, the repetition check and the output budget.
func BenchmarkDispatch(b *testing.B) {
	noop := &scriptedTool{name: "Edit", schema: editSchema, result: func(json.RawMessage) (tool.Result, error) { return tool.Text("ok"), nil }}
	r := tool.NewRegistry(noop)
	c := tool.Call{ID: "toolu_1", Name: "Edit", Input: json.RawMessage(`{"file_path":"/work/a.go","old_string":"x","replace_all":true}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Run(ctx, c); res.IsError {
			b.Fatal(res.Text())
		}
	}
}
