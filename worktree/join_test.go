package worktree

import (
	"encoding/json"
	"testing"

	"github.com/ouroagent/ouro/mechanism"
)

// The worktree a resumed session goes back into is the one its last readable move
// named; a move back to the main checkout ("") means none.
func TestResumedInIsTheLastMove(t *testing.T) {
	e := func(typ, data string) mechanism.Entry { return mechanism.Entry{Type: typ, Data: json.RawMessage(data)} }
	for _, c := range []struct {
		entries []mechanism.Entry
		want    string
	}{
		{nil, ""},
		{[]mechanism.Entry{e(EntryMove, `{"name":"a"}`)}, "a"},
		{[]mechanism.Entry{e(EntryMove, `{"name":"a"}`), e(EntryMove, `{"name":"b"}`), e("message", `{"name":"c"}`)}, "b"},
		{[]mechanism.Entry{e(EntryMove, `{"name":"a"}`), e(EntryMove, `{"name":""}`)}, ""},
		{[]mechanism.Entry{e(EntryMove, `{"name":"a"}`), e(EntryMove, `not json`)}, "a"},
	} {
		if got := resumedIn(mechanism.Env{Resumed: c.entries}); got != c.want {
			t.Errorf("resumedIn(%d entries) = %q, want %q", len(c.entries), got, c.want)
		}
	}
}
