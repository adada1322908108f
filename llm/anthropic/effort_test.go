package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// A request's effort is sent as output_config.effort; none sends no output_config.
func TestEffortIsSentAsOutputConfig(t *testing.T) {
	for effort, want := range map[string]string{"low": `"output_config":{"effort":"low"}`, "max": `"output_config":{"effort":"max"}`, "": ""} {
		params, err := toParams(&llm.Request{Effort: effort, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("hi")}}}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(params)
		if want == "" && strings.Contains(string(b), "output_config") || want != "" && !strings.Contains(string(b), want) {
			t.Errorf("effort %q: %s", effort, b)
		}
	}
}
