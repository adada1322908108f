package memory

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/llm"
)

const extractSystem = `You maintain a coding agent's long-term memory. From the conversation excerpt, propose only durable facts worth remembering in future sessions: the user's preferences and role (type "user"), corrections or guidance about how to work (type "feedback"), facts about the project not evident from the code (type "project"), and pointers to external resources (type "reference").
Do not propose: anything only true for this session or today, task progress, temporary files or paths, things obvious from the repository, or any credential, key, token or password.
Answer with only JSON: {"memories": [{"name": "short-kebab-name", "description": "one line", "type": "user|feedback|project|reference", "body": "the fact, with why it matters", "temporary": false}]}. Set "temporary": true for anything that will not hold next week. Answer {"memories": []} when nothing qualifies.`

// MaxTranscriptChars bounds the conversation text sent for extraction (the most recent part is kept).
const MaxTranscriptChars = 24000

var temporaryRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(today|tonight|tomorrow|yesterday|this (session|conversation|chat|run)|right now|for now|temporar(y|ily))\b|(^|[\s"'(])(/tmp/|/var/tmp/|/private/tmp/|%TEMP%|\$TMPDIR)`)
})

// Temporary reports whether text reads as a detail that will not hold in a later session.
func Temporary(text string) bool { return temporaryRe().MatchString(text) }

// Extract asks the model for durable facts in recent and returns them as records with
// Source set to source. Proposals the model marks temporary, that mention today, this
// session or temporary paths, that contain secrets, or that repeat one another are
// dropped. Secrets are also redacted from the transcript before it is sent. The records
// are not saved: pass them to Store.SaveAll, which also drops duplicates of the store.
func Extract(ctx context.Context, provider llm.Provider, model string, recent []llm.Message, source string) ([]Record, error) {
	if provider == nil {
		return nil, errors.New("memory: extract needs a provider")
	}
	transcript := Redact(llm.RenderMessages(recent, MaxTranscriptChars))
	if strings.TrimSpace(transcript) == "" {
		return nil, nil
	}
	req := &llm.Request{
		Model:     model,
		System:    extractSystem,
		Messages:  []llm.Message{llm.UserText("Conversation:\n\n" + transcript)},
		MaxTokens: 2048,
	}
	resp, err := provider.Complete(ctx, req, nil)
	if err != nil {
		return nil, fmt.Errorf("memory: extract: %w", err)
	}
	type proposal struct {
		Record
		Temporary bool `json:"temporary"`
	}
	var props []proposal
	text := resp.Message.Text()
	var wrapped struct {
		Memories []proposal `json:"memories"`
	}
	// A bare list is accepted too; look for it first when it comes first, or the first
	// object inside it would be taken for the {"memories": ...} wrapper.
	arr, obj := strings.IndexByte(text, '['), strings.IndexByte(text, '{')
	if arr >= 0 && (obj < 0 || arr < obj) {
		if err := llm.DecodeJSONIn(text, '[', ']', &props); err != nil {
			return nil, fmt.Errorf("memory: extract: %w", err)
		}
	} else if err := llm.DecodeJSONIn(text, '{', '}', &wrapped); err == nil {
		props = wrapped.Memories
	} else if err2 := llm.DecodeJSONIn(text, '[', ']', &props); err2 != nil {
		return nil, fmt.Errorf("memory: extract: %w", err)
	}
	var out []Record
	for _, p := range props {
		r := p.Record
		r.Name = strings.TrimSpace(r.Name)
		r.Description = strings.TrimSpace(r.Description)
		if r.Name == "" || r.Description == "" || p.Temporary {
			continue
		}
		all := r.Name + "\n" + r.Description + "\n" + r.Body
		if Temporary(all) || Secret(all) != "" || strings.Contains(all, redacted) {
			continue
		}
		switch r.Type {
		case TypeUser, TypeFeedback, TypeProject, TypeReference:
		default:
			r.Type = TypeProject
		}
		dup := false
		for _, o := range out {
			if FileName(o.Name) == FileName(r.Name) || nearDuplicate(o.Description, r.Description) {
				dup = true
			}
		}
		if dup {
			continue
		}
		r.Source = source
		out = append(out, r)
	}
	return out, nil
}

// SaveAll saves each record, skipping those the store refuses (duplicates, secrets,
// invalid ones); it returns what was saved and why the others were not.
func (s *Store) SaveAll(rs []Record) (saved []Record, skipped []error) {
	for _, r := range rs {
		if err := s.Save(r); err != nil {
			skipped = append(skipped, fmt.Errorf("%s: %w", r.Name, err))
			continue
		}
		saved = append(saved, r)
	}
	return saved, skipped
}

const redacted = "[REDACTED]"

// Redact replaces what Secret would flag with [REDACTED].
func Redact(text string) string {
	for _, p := range secretPatterns() {
		text = p.re.ReplaceAllString(text, redacted)
	}
	return assignRe().ReplaceAllStringFunc(text, func(m string) string {
		if Secret(m) == "" {
			return m
		}
		sub := assignRe().FindStringSubmatch(m)
		return strings.Replace(m, sub[1], redacted, 1)
	})
}

// Remember is what session end and /remember do: Extract from recent, save what the store
// accepts, then Consolidate when the store has grown past threshold (0 means
// DefaultConsolidateThreshold). A failed consolidation is returned as consolidateErr and
// leaves the saved records in place.
func Remember(ctx context.Context, provider llm.Provider, model string, s *Store, recent []llm.Message, source string, threshold int) (saved []Record, skipped []error, consolidateErr error, err error) {
	rs, err := Extract(ctx, provider, model, recent, source)
	if err != nil {
		return nil, nil, nil, err
	}
	saved, skipped = s.SaveAll(rs)
	if len(saved) > 0 {
		_, consolidateErr = Consolidate(ctx, provider, model, s, threshold)
	}
	return saved, skipped, consolidateErr, nil
}
