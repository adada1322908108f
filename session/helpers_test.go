package session

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// newSession creates a transcript in a fresh project folder and appends msgs.
func newSession(t *testing.T, msgs ...llm.Message) *Writer {
	t.Helper()
	w, err := Create(t.TempDir(), Meta{Model: "test-model", CWD: "/work/proj", Version: "0.0.1-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	for _, m := range msgs {
		if err := w.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func mustLoad(t *testing.T, path string) *Transcript {
	t.Helper()
	tr, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// lines returns the file's lines without their newlines.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func user(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: blocks}
}

func assistant(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: blocks}
}

func toolUse(id, input string) llm.Block {
	return llm.ToolUseBlock(id, "Bash", json.RawMessage(input))
}

func result(id, text string) llm.Block { return llm.ToolResultBlock(id, text, false) }

func interrupted(id string) llm.Block { return llm.ToolResultBlock(id, InterruptedResult, true) }
