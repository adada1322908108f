package mailbox

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
)

// Inbox delivers one agent's messages: it is the agent.BeforeModel seam of the recipient.
// Before each model request it adds the pending messages as one user message, has the
// transcript persisted, and only then acknowledges them.
type Inbox struct {
	Store Store
	Team  string
	// Name is the recipient ("main" for the lead).
	Name string
	// Persist makes what observers have written so far durable (the transcript's fsync);
	// messages are acknowledged only after it succeeds. nil: nothing to wait for.
	Persist func() error
	// OnDeliver, when set, is told of each batch after it is acknowledged.
	OnDeliver func([]Message)
	// OnError, when set, receives store errors (delivery is tried again next request).
	OnError func(error)
	// AfterPersist is for tests only: it runs between persisting the transcript and
	// acknowledging the messages, where the kill test crashes the process.
	AfterPersist func()

	mu     sync.Mutex
	seen   map[string]bool
	staged []Message // in the conversation, not yet acknowledged
	newest string    // the newest message id taken or found already delivered
}

var _ agent.BeforeModel = (*Inbox)(nil)

// Seen records ids already in the recipient's transcript (IDsIn of a resumed
// conversation): they are acknowledged, never delivered again.
func (in *Inbox) Seen(ids ...string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.seen == nil {
		in.seen = map[string]bool{}
	}
	for _, id := range ids {
		in.seen[id] = true
		in.saw(id)
	}
}

// Newest is the id of the newest message this inbox took from the store (to deliver it,
// or because the transcript already held it); "" before the first. Whoever reads the
// recipient's state from elsewhere compares it with the messages it knows were sent: an
// older one means the recipient's state predates them.
func (in *Inbox) Newest() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.newest
}

// saw notes id as taken. Called with mu held.
func (in *Inbox) saw(id string) {
	if Later(id, in.newest) {
		in.newest = id
	}
}

// Later reports whether message id a was sent after b ("" is before every id). Every
// store numbers a team's messages in the order they are sent (Store.Send), in decimal.
func Later(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}

// Pending reports whether messages wait for the recipient.
func (in *Inbox) Pending(ctx context.Context) bool {
	ms, err := in.Store.Pending(ctx, in.Team, in.Name)
	return err == nil && len(ms) > 0
}

// BeforeModel implements agent.BeforeModel.
func (in *Inbox) BeforeModel(ctx context.Context, t *agent.Turn) error {
	in.Deliver(ctx, t.AppendUser)
	return nil
}

// Deliver hands the pending messages to add (one call, a text block per message) and
// acknowledges them once Persist has succeeded; it returns them. Messages whose ids the
// transcript already holds are acknowledged without being added again.
func (in *Inbox) Deliver(ctx context.Context, add func(...llm.Block)) []Message {
	in.commit(ctx)
	fresh := in.take(ctx)
	if len(fresh) == 0 {
		return nil
	}
	blocks := make([]llm.Block, len(fresh))
	for i, m := range fresh {
		blocks[i] = llm.TextBlock(Format(m))
	}
	add(blocks...)
	in.commit(ctx)
	return fresh
}

// Stage takes the pending messages as one text for the caller to put into the
// conversation itself (the prompt an idle agent is woken with, the message a stopping
// run continues with); they are acknowledged by the next BeforeModel (or Deliver), once
// that text is in the persisted transcript. "" when nothing is pending.
func (in *Inbox) Stage(ctx context.Context) (string, []Message) {
	in.commit(ctx)
	fresh := in.take(ctx)
	texts := make([]string, len(fresh))
	for i, m := range fresh {
		texts[i] = Format(m)
	}
	return strings.Join(texts, "\n"), fresh
}

// take returns the pending messages not yet seen, marking them seen and staged; those
// already seen are acknowledged.
func (in *Inbox) take(ctx context.Context) []Message {
	ms, err := in.Store.Pending(ctx, in.Team, in.Name)
	if err != nil {
		in.fail(err)
		return nil
	}
	in.mu.Lock()
	if in.seen == nil {
		in.seen = map[string]bool{}
	}
	var fresh []Message
	var already []string
	for _, m := range ms {
		in.saw(m.ID)
		if in.seen[m.ID] {
			if !in.isStaged(m.ID) {
				already = append(already, m.ID)
			}
			continue
		}
		in.seen[m.ID] = true
		fresh = append(fresh, m)
	}
	in.staged = append(in.staged, fresh...)
	in.mu.Unlock()
	if len(already) > 0 {
		if err := in.Store.Ack(ctx, in.Team, in.Name, already); err != nil {
			in.fail(err)
		}
	}
	return fresh
}

func (in *Inbox) isStaged(id string) bool {
	for _, m := range in.staged {
		if m.ID == id {
			return true
		}
	}
	return false
}

// commit persists the transcript and acknowledges what was staged.
func (in *Inbox) commit(ctx context.Context) {
	in.mu.Lock()
	staged := in.staged
	in.mu.Unlock()
	if len(staged) == 0 {
		return
	}
	if in.Persist != nil {
		if err := in.Persist(); err != nil {
			// Not acknowledged: a restart finds them pending; if the transcript did keep
			// them, IDsIn recognises them then.
			in.fail(fmt.Errorf("mailbox: the transcript could not be persisted, messages stay unacknowledged: %w", err))
			return
		}
	}
	if in.AfterPersist != nil {
		in.AfterPersist()
	}
	ids := make([]string, len(staged))
	for i, m := range staged {
		ids[i] = m.ID
	}
	if err := in.Store.Ack(ctx, in.Team, in.Name, ids); err != nil {
		in.fail(err)
		return
	}
	in.mu.Lock()
	in.staged = in.staged[len(staged):]
	in.mu.Unlock()
	if in.OnDeliver != nil {
		in.OnDeliver(staged)
	}
}

func (in *Inbox) fail(err error) {
	if in.OnError != nil && ctxErr(err) == nil {
		in.OnError(err)
	}
}

func ctxErr(err error) error {
	if err == context.Canceled || err == context.DeadlineExceeded {
		return err
	}
	return nil
}

// tag opens every delivered message; IDsIn looks for it.
const tag = "<teammate-message"

var attrEsc = strings.NewReplacer("&", "&amp;", "\"", "&quot;", "<", "&lt;", ">", "&gt;", "\n", " ")

// bodyTags keeps a message's text from closing its block or forging another.
var bodyTags = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)<(/?)(teammate-message)`) })

// Format is how a message reaches the model: Claude Code's <teammate-message> block,
// with the id the transcript is searched for.
func Format(m Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, `%s id="%s" teammate_id="%s"`, tag, attrEsc.Replace(m.ID), attrEsc.Replace(m.From))
	if m.Kind != Text {
		fmt.Fprintf(&b, ` type="%s"`, attrEsc.Replace(string(m.Kind)))
	}
	if m.RequestID != "" {
		fmt.Fprintf(&b, ` request_id="%s"`, attrEsc.Replace(m.RequestID))
	}
	if m.Approve != nil {
		fmt.Fprintf(&b, ` approve="%t"`, *m.Approve)
	}
	if m.Summary != "" {
		fmt.Fprintf(&b, ` summary="%s"`, attrEsc.Replace(m.Summary))
	}
	b.WriteString(">\n")
	b.WriteString(bodyTags().ReplaceAllString(m.Text, "&lt;$1$2"))
	b.WriteString("\n</teammate-message>")
	return b.String()
}

var idAttr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^<teammate-message id="([^"]*)"`) })

// IDsIn returns the ids of the messages delivered into msgs: the <teammate-message> tags
// that begin a line of a text block of a user message (tool results and the model's own
// text never count, so quoting a message does not mark one delivered).
func IDsIn(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role != llm.RoleUser {
			continue
		}
		for _, b := range m.Content {
			if b.Type != llm.BlockText {
				continue
			}
			for _, sm := range idAttr().FindAllStringSubmatch(b.Text, -1) {
				out = append(out, strings.ReplaceAll(sm[1], "&quot;", "\""))
			}
		}
	}
	return out
}
