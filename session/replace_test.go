package session

import (
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// After a replace entry (compaction), the conversation restarts from the replacement and
// goes on with what was appended after it.
func TestMessagesStartFromTheLastReplacement(t *testing.T) {
	w := newSession(t, user(llm.TextBlock("old prompt")), assistant(llm.TextBlock("old answer")))
	summary := []llm.Message{user(llm.TextBlock("summary of the work so far"))}
	if err := w.AppendEntry(TypeReplace, map[string]any{"messages": summary}); err != nil {
		t.Fatal(err)
	}
	w.AppendMessage(assistant(llm.TextBlock("continuing")))
	w.AppendMessage(user(llm.TextBlock("next")))
	w.Close()
	msgs, _ := mustLoad(t, w.Path()).Messages()
	if len(msgs) != 3 || msgs[0].Text() != "summary of the work so far" || msgs[2].Text() != "next" {
		t.Fatalf("messages = %+v", msgs)
	}
	if err := llm.ValidateConversation(msgs); err != nil {
		t.Fatal(err)
	}
}
