package tool

import (
	"encoding/json"
	"strings"
	"testing"
)

// The same schema bytes compile once per process: registries share the compiled schema,
// other bytes get their own, and a broken schema is refused every time, naming its tool.
func TestSchemaCompiledOncePerProcess(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","description":"cache test 1"}},"required":["n"],"additionalProperties":false}`)
	a, err := compileSchema("A", raw)
	if err != nil {
		t.Fatal(err)
	}
	b, err := compileSchema("B", append(json.RawMessage(nil), raw...))
	if err != nil || a != b {
		t.Fatalf("the same bytes compiled twice (%p, %p) %v", a, b, err)
	}
	other, _ := compileSchema("C", json.RawMessage(strings.Replace(string(raw), "integer", "string", 1)))
	if other == a {
		t.Fatal("other bytes share a compiled schema")
	}
	if err := b.check(json.RawMessage(`{"n":"x"}`)); err == nil || !strings.Contains(err.Error(), "n: got \"x\"") {
		t.Errorf("a shared schema checks as its own: %v", err)
	}
	if other.check(json.RawMessage(`{"n":"x"}`)) != nil {
		t.Error("the other schema refused what it allows")
	}
	broken := json.RawMessage(`{"type":"objekt","properties":{"x":{"description":"cache test 2"}}}`)
	for _, name := range []string{"First", "Second"} {
		if _, err := compileSchema(name, broken); err == nil || !strings.Contains(err.Error(), "tool "+name) {
			t.Errorf("broken schema for %s: %v", name, err)
		}
	}
}

// BenchmarkCompileSchemaShared compares compiling a tool schema met before (what each
// further agent's registry pays) with compiling it afresh (what it paid before).
func BenchmarkCompileSchemaShared(b *testing.B) {
	raw := json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean","default":false}},"required":["file_path","old_string","new_string"],"additionalProperties":false}`)
	b.Run("shared", func(b *testing.B) {
		for b.Loop() {
			if _, err := compileSchema("Edit", raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			if _, err := compileFresh("Edit", raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
