package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// A request's effort is sent as reasoning_effort; none sends none.
func TestEffortIsSentAsReasoningEffort(t *testing.T) {
	for effort, want := range map[string]string{"high": `"reasoning_effort":"high"`, "": ""} {
		p, err := buildParams(&llm.Request{Model: "m", Effort: effort, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("hi")}}}}, 10, true)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p)
		if want == "" && strings.Contains(string(b), "reasoning_effort") || want != "" && !strings.Contains(string(b), want) {
			t.Errorf("effort %q: %s", effort, b)
		}
	}
}
