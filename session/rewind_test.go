package session

import (
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// A replacement with no messages (a rewind to before the first prompt) empties the
// history; one without a messages field is still ignored as unreadable.
func TestAnEmptyReplacementEmptiesTheHistory(t *testing.T) {
	w := newSession(t, user(llm.TextBlock("first prompt")), assistant(llm.TextBlock("answer")))
	if err := w.AppendEntry(TypeReplace, map[string]any{"other": 1}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if msgs, _ := mustLoad(t, w.Path()).Messages(); len(msgs) != 2 {
		t.Fatalf("a replacement without messages was applied: %+v", msgs)
	}
	w2 := newSession(t, user(llm.TextBlock("first prompt")), assistant(llm.TextBlock("answer")))
	if err := w2.AppendEntry(TypeReplace, map[string]any{"messages": []llm.Message{}}); err != nil {
		t.Fatal(err)
	}
	w2.AppendMessage(user(llm.TextBlock("after the rewind")))
	w2.Close()
	msgs, _ := mustLoad(t, w2.Path()).Messages()
	if len(msgs) != 1 || msgs[0].Text() != "after the rewind" {
		t.Fatalf("messages = %+v", msgs)
	}
}
