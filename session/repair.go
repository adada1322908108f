package session

import (
	"encoding/json"
	"fmt"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
)

// InterruptedResult is the text of the tool_result Messages adds for a call that has none:
// the process stopped between asking for the call and recording its result.
const InterruptedResult = "The tool call was interrupted: the process stopped before it finished, " +
	"so it may not have run, or may have run only in part. Check its effects before relying on them or running it again."

// cutInputNote is added to InterruptedResult when the call's input was cut off too.
const cutInputNote = " Its input was cut off before it was complete (not valid JSON) and has been replaced with {}."

// placeholderStart opens a conversation whose first user message could not be read.
const placeholderStart = "[The beginning of this conversation could not be read from the transcript.]"

// RepairKind says what Messages changed.
type RepairKind string

const (
	RepairAddedResult    RepairKind = "added_tool_result" // an unanswered tool_use got InterruptedResult
	RepairFixedInput     RepairKind = "fixed_tool_input"  // a tool_use input that was not a JSON object became {}
	RepairDroppedMessage RepairKind = "dropped_message"   // a message without content or with an unknown role
	RepairDroppedBlock   RepairKind = "dropped_block"     // a block the protocol does not allow where it was
	RepairAddedStart     RepairKind = "added_start"       // a placeholder first user message
)

// Repair records one change Messages made to the conversation read from the file.
type Repair struct {
	Kind RepairKind
	// Message is the index, in the repaired slice, of the message changed or added; for a
	// dropped message, the index the next message took.
	Message int
	// Entry is the UUID of the transcript entry changed or dropped; for an added message
	// of results, the assistant entry whose calls it answers.
	Entry     string
	ToolUseID string
	Detail    string
}

func (r Repair) String() string { return fmt.Sprintf("message %d: %s", r.Message, r.Detail) }

// Messages rebuilds the conversation from the user and assistant entries, in file order,
// and repairs what an interrupted run leaves so that the result passes
// llm.ValidateConversation (provided there is at least one message):
//   - a tool_use not answered in the next user message gets an is_error tool_result saying
//     it was interrupted (InterruptedResult), in call order among the results present;
//   - a tool_use whose input is not a JSON object (a cut stream) gets input {} and, unless
//     it was answered, the same result;
//   - messages without content (such as a trailing assistant message cut before its first
//     block) are dropped, and so are blocks that answer nothing, answer a call twice, reuse
//     a tool_use id or sit in the wrong role;
//   - a conversation whose first user message was lost gets a placeholder one.
//
// The file and Entries are not modified (unchanged blocks share their data with Entries);
// the repairs are returned so the caller can tell the user or record them.
func (t *Transcript) Messages() ([]llm.Message, []Repair) {
	r := repairer{seen: map[string]bool{}, cutInput: map[string]bool{}}
	for _, e := range t.Entries {
		if e.Type == TypeReplace {
			// The history was replaced (compaction): start over from the new one.
			var data struct {
				Messages []llm.Message `json:"messages"`
			}
			if err := json.Unmarshal(e.Data, &data); err != nil || data.Messages == nil { // [] is a rewind to the start
				r.note(RepairDroppedMessage, e.UUID, "", "ignored an unreadable history replacement (line %d)", e.Line)
				continue
			}
			repairs := r.repairs
			r = repairer{seen: map[string]bool{}, cutInput: map[string]bool{}, repairs: repairs}
			for _, m := range data.Messages {
				r.add(e.UUID, m)
			}
			continue
		}
		if e.Message != nil {
			r.add(e.UUID, *e.Message)
		}
	}
	r.answerPending()
	return r.out, r.repairs
}

type repairer struct {
	out      []llm.Message
	src      []string // entry UUID of each message in out; empty for added ones
	repairs  []Repair
	seen     map[string]bool // tool_use IDs kept so far
	cutInput map[string]bool // tool_use IDs whose input was replaced
}

func (r *repairer) note(kind RepairKind, entry, toolUseID, format string, args ...any) {
	r.repairs = append(r.repairs, Repair{
		Kind: kind, Message: len(r.out), Entry: entry, ToolUseID: toolUseID,
		Detail: fmt.Sprintf(format, args...),
	})
}

func (r *repairer) add(entry string, m llm.Message) {
	if m.Role != llm.RoleUser && m.Role != llm.RoleAssistant {
		r.note(RepairDroppedMessage, entry, "", "dropped a message with role %q", m.Role)
		return
	}
	var notes []Repair
	m.Content, notes = r.cleanBlocks(entry, m)
	if len(m.Content) == 0 {
		r.flush(notes)
		r.note(RepairDroppedMessage, entry, "", "dropped an empty %s message", m.Role)
		return
	}
	if m.Role == llm.RoleUser {
		r.flush(notes)
		m.Content = r.answer(entry, m.Content)
		if len(m.Content) == 0 {
			return // it held only results that answer nothing; each drop is recorded
		}
	} else {
		r.answerPending()
		if len(r.out) == 0 {
			r.note(RepairAddedStart, "", "", "added a placeholder first user message: the conversation started with an assistant message")
			r.push("", llm.UserText(placeholderStart))
		}
		r.flush(notes)
	}
	r.push(entry, m)
}

func (r *repairer) push(entry string, m llm.Message) {
	r.out = append(r.out, m)
	r.src = append(r.src, entry)
}

// flush records notes about the message about to be appended.
func (r *repairer) flush(notes []Repair) {
	for _, n := range notes {
		n.Message = len(r.out)
		r.repairs = append(r.repairs, n)
	}
}

// cleanBlocks returns a copy of m's blocks without the ones its role may not carry, with
// every tool_use input a JSON object, and notes on what it changed.
func (r *repairer) cleanBlocks(entry string, m llm.Message) ([]llm.Block, []Repair) {
	var notes []Repair
	note := func(kind RepairKind, id, format string, args ...any) {
		notes = append(notes, Repair{Kind: kind, Entry: entry, ToolUseID: id, Detail: fmt.Sprintf(format, args...)})
	}
	out := make([]llm.Block, 0, len(m.Content))
	for _, b := range m.Content {
		switch {
		case b.Type == llm.BlockToolUse && m.Role != llm.RoleAssistant:
			note(RepairDroppedBlock, b.ID, "dropped tool_use %s from a user message", b.ID)
			continue
		case b.Type == llm.BlockToolResult && m.Role != llm.RoleUser:
			note(RepairDroppedBlock, b.ToolUseID, "dropped tool_result for %s from an assistant message", b.ToolUseID)
			continue
		case b.Type == llm.BlockToolUse && (b.ID == "" || b.Name == ""):
			note(RepairDroppedBlock, b.ID, "dropped a tool_use without an id or a name (id %q, name %q)", b.ID, b.Name)
			continue
		case b.Type == llm.BlockToolUse && r.seen[b.ID]:
			note(RepairDroppedBlock, b.ID, "dropped tool_use %s (%s): its id was already used", b.ID, b.Name)
			continue
		case b.Type == llm.BlockToolUse:
			r.seen[b.ID] = true
			if !isObject(b.Input) {
				note(RepairFixedInput, b.ID, "tool_use %s (%s): input was not a JSON object and became {}: %s", b.ID, b.Name, rawInput(b.Input))
				b.Input = json.RawMessage(`{}`)
				r.cutInput[b.ID] = true
			}
		}
		out = append(out, b)
	}
	return out, notes
}

// pending returns the tool_use blocks of the last message if it is from the assistant:
// the calls the next message must answer.
func (r *repairer) pending() []llm.Block {
	if len(r.out) == 0 || r.out[len(r.out)-1].Role != llm.RoleAssistant {
		return nil
	}
	return r.out[len(r.out)-1].ToolUses()
}

// answer makes a user message's blocks answer every pending call exactly once. When
// nothing is missing or extra, the blocks are returned unchanged; otherwise the results
// come first in call order (synthetic ones where a result is missing), then the other
// blocks in their order.
func (r *repairer) answer(entry string, blocks []llm.Block) []llm.Block {
	calls := r.pending()
	want := map[string]bool{}
	for _, c := range calls {
		want[c.ID] = true
	}
	got := map[string]llm.Block{}
	var rest []llm.Block
	clean := true
	for _, b := range blocks {
		if b.Type != llm.BlockToolResult {
			rest = append(rest, b)
			continue
		}
		if _, dup := got[b.ToolUseID]; dup || !want[b.ToolUseID] {
			why := "it answers no tool_use in the message just before"
			if dup {
				why = "the call was already answered"
			}
			r.note(RepairDroppedBlock, entry, b.ToolUseID, "dropped tool_result for %s: %s", b.ToolUseID, why)
			clean = false
			continue
		}
		got[b.ToolUseID] = b
	}
	if clean && len(got) == len(calls) {
		return blocks
	}
	out := make([]llm.Block, 0, len(calls)+len(rest))
	for _, c := range calls {
		if b, ok := got[c.ID]; ok {
			out = append(out, b)
			continue
		}
		r.note(RepairAddedResult, entry, c.ID, "added an interrupted tool_result for %s (%s)", c.ID, c.Name)
		out = append(out, r.interrupted(c))
	}
	return append(out, rest...)
}

// answerPending adds a user message of interrupted results if the last message has calls
// nobody answered (the next message is from the assistant, or there is none).
func (r *repairer) answerPending() {
	calls := r.pending()
	if len(calls) == 0 {
		return
	}
	caller := r.src[len(r.src)-1]
	m := llm.Message{Role: llm.RoleUser}
	for _, c := range calls {
		r.note(RepairAddedResult, caller, c.ID, "added an interrupted tool_result for %s (%s) in a new user message", c.ID, c.Name)
		m.Content = append(m.Content, r.interrupted(c))
	}
	r.push("", m)
}

func (r *repairer) interrupted(call llm.Block) llm.Block {
	text := InterruptedResult
	if r.cutInput[call.ID] {
		text += cutInputNote
	}
	return llm.ToolResultBlock(call.ID, text, true)
}

func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return json.Valid(raw)
		}
		return false
	}
	return false
}

// rawInput shows a broken input for a repair note: the text the writer saved as a JSON
// string, or the JSON as is, clipped.
func rawInput(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(none)"
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	return fmt.Sprintf("%q", textcut.Runes(s, 200, "…"))
}
