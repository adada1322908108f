package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// initialize's systemPrompt: absent, a string, an array of strings; anything else is an
// error naming what came, never a crash.
func TestSDKSystemPromptForms(t *testing.T) {
	for raw, want := range map[string]string{``: "", `null`: "", `"a"`: "a", `["a","b"]`: "a\n\nb", `[""]`: ""} {
		got, err := sdkSystemPrompt(json.RawMessage(raw))
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{`{"type":"preset"}`, `[1,2]`, `42`} {
		if _, err := sdkSystemPrompt(json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), "string or an array of strings") {
			t.Errorf("%s: %v, want an error naming the forms", raw, err)
		}
	}
}

// Fields of initialize ouro does not apply are named on stderr, each once; those it
// reads or needs nothing for are not.
func TestSDKInitializeUnusedFieldsAreNamed(t *testing.T) {
	var b bytes.Buffer
	warnUnusedInit(json.RawMessage(`{"subtype":"initialize","hooks":{},"jsonSchema":{"type":"object"},"skills":["x"],"title":null,"sdkMcpServerManifests":{}}`), &b)
	out := b.String()
	for _, k := range []string{`"skills"`} {
		if strings.Count(out, k) != 1 {
			t.Errorf("want %s named once:\n%s", k, out)
		}
	}
	for _, k := range []string{"hooks", "title", "sdkMcpServerManifests", "subtype", "jsonSchema"} {
		if strings.Contains(out, k) {
			t.Errorf("%s was named:\n%s", k, out)
		}
	}
}
