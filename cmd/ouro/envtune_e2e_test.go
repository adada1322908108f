//go:build unix

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// Issue 30 item 11: Claude Code's tuning variables, from the settings' env and from the
// environment, change what ouro sends and shows; an invalid one is warned about and its
// default used.
func TestTuningVariablesThroughTheBinary(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"env": {
		"BASH_MAX_OUTPUT_LENGTH": "300", "DISABLE_PROMPT_CACHING": "1", "BASH_DEFAULT_TIMEOUT_MS": "77000"}}`)
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("seq 1 3000")},
		scripted.Turn{Text: "counted"},
	)
	e.vars = append(e.vars, "CLAUDE_CODE_MAX_OUTPUT_TOKENS=1234", "BASH_MAX_TIMEOUT_MS=ten minutes")
	stdout, stderr, code := e.run("", "-p", "count", "--allowedTools", "Bash")
	if code != 0 || !strings.Contains(stdout, "counted") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, `BASH_MAX_TIMEOUT_MS="ten minutes" is not a positive whole number`) {
		t.Errorf("no warning about the invalid BASH_MAX_TIMEOUT_MS:\n%s", stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var first struct {
		MaxTokens int `json:"max_tokens"`
		Tools     []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Body, &first); err != nil {
		t.Fatal(err)
	}
	if first.MaxTokens != 1234 {
		t.Errorf("max_tokens %d, want 1234 (CLAUDE_CODE_MAX_OUTPUT_TOKENS)", first.MaxTokens)
	}
	for _, tl := range first.Tools {
		// The default timeout comes from the settings' env; the invalid cap stays 600000.
		if tl.Name == "Bash" && (!strings.Contains(tl.Description, "default 77000") || !strings.Contains(tl.Description, "max 600000")) {
			t.Errorf("Bash description: %s", tl.Description)
		}
	}
	for i, r := range reqs {
		if strings.Contains(string(r.Body), "cache_control") {
			t.Errorf("request %d carries cache_control under DISABLE_PROMPT_CACHING", i)
		}
	}
	// ouro doctor says it too.
	if out, errOut, _ := e.run("", "doctor"); !strings.Contains(out+errOut, `BASH_MAX_TIMEOUT_MS="ten minutes"`) {
		t.Errorf("doctor does not name the invalid BASH_MAX_TIMEOUT_MS:\n%s\n%s", out, errOut)
	}
	var result string
	for _, m := range reqs[1].Messages {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				result = b.ResultText()
			}
		}
	}
	// seq 1 3000 prints 13,893 characters; the model sees about 300 and where the rest is.
	if !strings.Contains(result, "left out of this view") || len(result) > 1200 || !strings.HasPrefix(result, "1\n2\n") {
		t.Errorf("Bash result (%d chars) is not cut to BASH_MAX_OUTPUT_LENGTH:\n%s", len(result), result)
	}
}
