//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// These run --json-schema through the binary (issue 30, item 15): the model answers
// through StructuredOutput, whose input schema is the given schema, and the result
// carries the valid answer as structured_output.

const answerSchema = `{"type":"object","properties":{"city":{"type":"string"},"population":{"type":"integer"}},"required":["city","population"],"additionalProperties":false}`

func structuredCall(input string) scripted.Turn {
	return scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "StructuredOutput", Input: json.RawMessage(input)}}}
}

func jsonResult(t *testing.T, out, stderr string) map[string]any {
	t.Helper()
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("the result is not JSON: %v\n%s\n%s", err, out, stderr)
	}
	return res
}

func TestJSONSchemaStructuredOutput(t *testing.T) {
	t.Run("valid at once, schema from a file, offered to the model", func(t *testing.T) {
		e := newEnv(t)
		srv := e.fake(structuredCall(`{"city":"Lyon","population":522000}`),
			scripted.Turn{ExpectContains: "Structured output provided", Text: "Done."})
		path := filepath.Join(e.dir, "schema.json")
		if err := os.WriteFile(path, []byte(answerSchema), 0o644); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := e.run("", "-p", "which city?", "--output-format", "json", "--json-schema", "schema.json")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		res := jsonResult(t, out, stderr)
		so, _ := res["structured_output"].(map[string]any)
		if res["subtype"] != "success" || so["city"] != "Lyon" || so["population"] != float64(522000) {
			t.Fatalf("result = %v", res)
		}
		var req struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"input_schema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(srv.Requests()[0].Body, &req); err != nil {
			t.Fatal(err)
		}
		offered := false
		for _, tl := range req.Tools {
			if tl.Name == "StructuredOutput" {
				offered = strings.Contains(string(tl.InputSchema), `"population"`)
			}
		}
		if !offered {
			t.Fatalf("StructuredOutput with the schema was not offered: %s", srv.Requests()[0].Body)
		}
	})

	t.Run("one invalid then valid, stream-json", func(t *testing.T) {
		e := newEnv(t)
		e.fake(structuredCall(`{"city":"Lyon","population":"many"}`),
			scripted.Turn{ExpectContains: "population", ToolCalls: structuredCall(`{"city":"Lyon","population":522000}`).ToolCalls},
			scripted.Turn{Text: "Done."})
		out, stderr, code := e.run("", "-p", "which city?", "--output-format", "stream-json", "--verbose", "--json-schema", answerSchema)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		lines := parseLines(t, out)
		res := lines[len(lines)-1]
		so, _ := res["structured_output"].(map[string]any)
		if res["type"] != "result" || res["subtype"] != "success" || so["population"] != float64(522000) || res["num_turns"] != float64(3) {
			t.Fatalf("result = %v", res)
		}
	})

	t.Run("text first is sent back; text output prints the JSON", func(t *testing.T) {
		e := newEnv(t)
		e.fake(scripted.Turn{Text: "Lyon, about half a million."},
			scripted.Turn{ExpectContains: "You must call the StructuredOutput tool", ToolCalls: structuredCall(`{"city":"Lyon","population":522000}`).ToolCalls},
			scripted.Turn{Text: "Done."})
		out, stderr, code := e.run("", "-p", "which city?", "--json-schema", answerSchema)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		if strings.TrimSpace(out) != `{"city":"Lyon","population":522000}` {
			t.Fatalf("text output = %q", out)
		}
	})

	t.Run("five invalid end the run", func(t *testing.T) {
		e := newEnv(t)
		var turns []scripted.Turn
		for range 5 {
			turns = append(turns, structuredCall(`{"city":"Lyon"}`))
		}
		srv := e.fake(append(turns, scripted.Turn{Text: "never asked"})...)
		out, stderr, code := e.run("", "-p", "which city?", "--output-format", "json", "--json-schema", answerSchema)
		if code == 0 {
			t.Fatalf("exit 0\n%s\n%s", out, stderr)
		}
		res := jsonResult(t, out, stderr)
		if res["subtype"] != "error_max_structured_output_retries" || res["is_error"] != true || res["structured_output"] != nil {
			t.Fatalf("result = %v", res)
		}
		if n := len(srv.Requests()); n != 5 {
			t.Fatalf("%d model calls, want 5", n)
		}
	})

	t.Run("a bad schema is an error at start", func(t *testing.T) {
		e := newEnv(t)
		srv := e.fake(scripted.Turn{Text: "never asked"})
		for _, bad := range []string{`{"type":"object","properties":{"a":{"type":"objekt"}}}`, `{"type":"array"}`, "{oops", "missing.json"} {
			out, stderr, code := e.run("", "-p", "hi", "--json-schema", bad)
			if code == 0 || !strings.Contains(stderr, "--json-schema") {
				t.Errorf("--json-schema %s: exit %d\n%s\n%s", bad, code, out, stderr)
			}
		}
		if n := len(srv.Requests()); n != 0 {
			t.Fatalf("%d model calls with a bad schema", n)
		}
	})
}

// The Agent SDK's initialize may carry the schema (jsonSchema) instead of the flag.
func TestSDKInitializeJSONSchema(t *testing.T) {
	e := newEnv(t)
	e.fake(structuredCall(`{"city":"Lyon","population":522000}`), scripted.Turn{Text: "Done."})
	s := startSDK(t, e, func(map[string]any) (any, string, bool) { return nil, "unexpected request", false })
	var schema map[string]any
	if err := json.Unmarshal([]byte(answerSchema), &schema); err != nil {
		t.Fatal(err)
	}
	s.initialize(nil, map[string]any{"jsonSchema": schema})
	s.user("which city?")
	r := s.result(1)
	so, _ := r["structured_output"].(map[string]any)
	if r["subtype"] != "success" || so["city"] != "Lyon" {
		t.Fatalf("result = %v\n%s", r, s.stderr)
	}
	if strings.Contains(s.stderr.String(), "jsonSchema") {
		t.Errorf("jsonSchema was called unapplied:\n%s", s.stderr.String())
	}
	s.finish()
}
