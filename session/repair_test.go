package session

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

func TestMessagesRepair(t *testing.T) {
	cutNote := llm.ToolResultBlock("toolu_1", InterruptedResult+cutInputNote, true)
	for _, tc := range []struct {
		name  string
		in    []llm.Message
		want  []llm.Message
		kinds []RepairKind
	}{
		{
			name: "clean conversation is untouched",
			in: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`), toolUse("toolu_2", `{}`)),
				user(result("toolu_2", "b"), result("toolu_1", "a"), llm.TextBlock("note")),
				assistant(llm.TextBlock("done")),
			},
			want: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`), toolUse("toolu_2", `{}`)),
				user(result("toolu_2", "b"), result("toolu_1", "a"), llm.TextBlock("note")),
				assistant(llm.TextBlock("done")),
			},
		},
		{
			name: "whole batch unanswered at the end",
			in:   []llm.Message{llm.UserText("go"), assistant(llm.TextBlock("both"), toolUse("toolu_1", `{"command":"a"}`), toolUse("toolu_2", `{"command":"b"}`))},
			want: []llm.Message{
				llm.UserText("go"),
				assistant(llm.TextBlock("both"), toolUse("toolu_1", `{"command":"a"}`), toolUse("toolu_2", `{"command":"b"}`)),
				user(interrupted("toolu_1"), interrupted("toolu_2")),
			},
			kinds: []RepairKind{RepairAddedResult, RepairAddedResult},
		},
		{
			name: "part of a batch answered",
			in: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`), toolUse("toolu_2", `{}`), toolUse("toolu_3", `{}`)),
				user(result("toolu_2", "two")),
			},
			want: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`), toolUse("toolu_2", `{}`), toolUse("toolu_3", `{}`)),
				user(interrupted("toolu_1"), result("toolu_2", "two"), interrupted("toolu_3")),
			},
			kinds: []RepairKind{RepairAddedResult, RepairAddedResult},
		},
		{
			name: "unanswered batch followed by a new prompt after resume",
			in:   []llm.Message{llm.UserText("go"), assistant(toolUse("toolu_1", `{}`)), llm.UserText("carry on")},
			want: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`)),
				user(interrupted("toolu_1"), llm.TextBlock("carry on")),
			},
			kinds: []RepairKind{RepairAddedResult},
		},
		{
			name: "unanswered batch followed by an assistant message",
			in:   []llm.Message{llm.UserText("go"), assistant(toolUse("toolu_1", `{}`)), assistant(llm.TextBlock("hm"))},
			want: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`)),
				user(interrupted("toolu_1")),
				assistant(llm.TextBlock("hm")),
			},
			kinds: []RepairKind{RepairAddedResult},
		},
		{
			name: "input cut mid-stream",
			in:   []llm.Message{llm.UserText("go"), assistant(llm.TextBlock("running"), toolUse("toolu_1", `{"command":"make te`))},
			want: []llm.Message{
				llm.UserText("go"),
				assistant(llm.TextBlock("running"), toolUse("toolu_1", `{}`)),
				user(cutNote),
			},
			kinds: []RepairKind{RepairFixedInput, RepairAddedResult},
		},
		{
			name: "cut input already answered by the loop",
			in: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{"command":"make te`)),
				user(llm.ToolResultBlock("toolu_1", "input was cut off", true)),
			},
			want: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`)),
				user(llm.ToolResultBlock("toolu_1", "input was cut off", true)),
			},
			kinds: []RepairKind{RepairFixedInput},
		},
		{
			name: "missing and non-object inputs",
			in: []llm.Message{
				llm.UserText("go"),
				assistant(llm.Block{Type: llm.BlockToolUse, ID: "toolu_1", Name: "Bash"}, toolUse("toolu_2", `[1]`)),
				user(result("toolu_1", "a"), result("toolu_2", "b")),
			},
			want: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`), toolUse("toolu_2", `{}`)),
				user(result("toolu_1", "a"), result("toolu_2", "b")),
			},
			kinds: []RepairKind{RepairFixedInput, RepairFixedInput},
		},
		{
			name:  "trailing empty assistant message",
			in:    []llm.Message{llm.UserText("go"), assistant(llm.TextBlock("hi")), llm.UserText("more"), assistant()},
			want:  []llm.Message{llm.UserText("go"), assistant(llm.TextBlock("hi")), llm.UserText("more")},
			kinds: []RepairKind{RepairDroppedMessage},
		},
		{
			name: "results that answer nothing or answer twice",
			in: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`)),
				user(result("toolu_1", "a"), result("toolu_9", "lost call"), result("toolu_1", "again")),
				user(result("toolu_1", "late")),
			},
			want: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`)),
				user(result("toolu_1", "a")),
			},
			kinds: []RepairKind{RepairDroppedBlock, RepairDroppedBlock, RepairDroppedBlock},
		},
		{
			name: "conversation starting with the assistant",
			in:   []llm.Message{assistant(llm.TextBlock("where was I")), llm.UserText("here")},
			want: []llm.Message{
				llm.UserText(placeholderStart),
				assistant(llm.TextBlock("where was I")),
				llm.UserText("here"),
			},
			kinds: []RepairKind{RepairAddedStart},
		},
		{
			name: "reused tool_use id",
			in: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`)),
				user(result("toolu_1", "a")),
				assistant(llm.TextBlock("again"), toolUse("toolu_1", `{}`)),
				user(result("toolu_1", "b")),
			},
			want: []llm.Message{
				llm.UserText("go"),
				assistant(toolUse("toolu_1", `{}`)),
				user(result("toolu_1", "a")),
				assistant(llm.TextBlock("again")),
			},
			kinds: []RepairKind{RepairDroppedBlock, RepairDroppedBlock},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newSession(t, tc.in...)
			tr := mustLoad(t, w.Path())
			got, repairs := tr.Messages()
			if err := llm.ValidateConversation(got); err != nil {
				t.Fatalf("repaired conversation is invalid: %v\n%s", err, mustJSON(t, got))
			}
			if g, w := mustJSON(t, got), mustJSON(t, tc.want); g != w {
				t.Errorf("messages\n got %s\nwant %s", g, w)
			}
			var kinds []RepairKind
			for _, r := range repairs {
				kinds = append(kinds, r.Kind)
				if r.Detail == "" || r.Message < 0 || r.Message > len(got) {
					t.Errorf("repair %+v: needs a detail and an index into the result", r)
				}
			}
			if mustJSON(t, kinds) != mustJSON(t, tc.kinds) {
				t.Errorf("repairs %v, want kinds %v", repairs, tc.kinds)
			}
		})
	}
}

func TestRepairPointsAtTheMessage(t *testing.T) {
	w := newSession(t,
		llm.UserText("go"),
		assistant(toolUse("toolu_1", `{}`), toolUse("toolu_2", `{"x":`)),
		user(result("toolu_1", "a")),
	)
	tr := mustLoad(t, w.Path())
	got, repairs := tr.Messages()
	if len(repairs) != 2 {
		t.Fatalf("repairs %v", repairs)
	}
	fixed, added := repairs[0], repairs[1]
	if fixed.Kind != RepairFixedInput || fixed.Message != 1 || fixed.Entry != tr.Entries[2].UUID || fixed.ToolUseID != "toolu_2" {
		t.Errorf("input repair %+v, want message 1, entry %s, toolu_2", fixed, tr.Entries[2].UUID)
	}
	if !strings.Contains(fixed.Detail, `{\"x\":`) {
		t.Errorf("input repair detail %q does not show the cut input", fixed.Detail)
	}
	if added.Kind != RepairAddedResult || added.Message != 2 || added.Entry != tr.Entries[3].UUID || added.ToolUseID != "toolu_2" {
		t.Errorf("result repair %+v, want message 2, entry %s, toolu_2", added, tr.Entries[3].UUID)
	}
	if !strings.Contains(got[2].Content[1].ResultText(), "cut off") || !got[2].Content[1].IsError {
		t.Errorf("result for the cut call: %s", mustJSON(t, got[2].Content[1]))
	}
}

func TestRepairLeavesFileAndEntriesAlone(t *testing.T) {
	w := newSession(t, llm.UserText("go"), assistant(toolUse("toolu_1", `{"command":"ma`)), assistant())
	before, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	tr := mustLoad(t, w.Path())
	entries := mustJSON(t, tr.Entries)
	if _, repairs := tr.Messages(); len(repairs) == 0 {
		t.Fatal("nothing was repaired")
	}
	after, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("Messages changed the file")
	}
	if mustJSON(t, tr.Entries) != entries {
		t.Error("Messages changed Entries")
	}
	var raw string
	if err := json.Unmarshal(tr.Entries[2].Message.Content[0].Input, &raw); err != nil || raw != `{"command":"ma` {
		t.Errorf("entry input %s", tr.Entries[2].Message.Content[0].Input)
	}
}

func TestMessagesOfTranscriptWithoutMessages(t *testing.T) {
	w := newSession(t)
	msgs, repairs := mustLoad(t, w.Path()).Messages()
	if len(msgs) != 0 || len(repairs) != 0 {
		t.Errorf("messages %v repairs %v, want none", msgs, repairs)
	}
}
