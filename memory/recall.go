package memory

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
)

// MaxRecall is the most records one recall returns.
const MaxRecall = 5

const recallSystem = `You select memories relevant to a user's request. You are given the request and an index of saved memories, one per line as "name (type): description". Answer with only a JSON array of the names of the memories that would clearly help with the request, at most %d, most relevant first; answer [] when none does.`

// Recall picks the records of store relevant to prompt: one small model call over the
// index (parsed as a JSON list of names), or, when provider is nil or the call or its
// answer fails, keyword overlap. At most max records (never more than MaxRecall) are
// returned, and only as many as fit budget characters of Format (0 means no limit).
func Recall(ctx context.Context, provider llm.Provider, model string, store *Store, prompt string, max int, budget int) ([]Record, error) {
	all, err := store.List()
	if err != nil {
		return nil, err
	}
	rs, _ := recallFrom(ctx, provider, model, all, prompt, max, budget)
	return rs, nil
}

// recallFrom also returns what the selection call cost in tokens.
func recallFrom(ctx context.Context, provider llm.Provider, model string, all []Record, prompt string, max, budget int) ([]Record, llm.Usage) {
	if max <= 0 || max > MaxRecall {
		max = MaxRecall
	}
	if len(all) == 0 || strings.TrimSpace(prompt) == "" {
		return nil, llm.Usage{}
	}
	var chosen []Record
	names, usage, err := askNames(ctx, provider, model, all, prompt, max)
	if err == nil {
		byName := map[string]Record{}
		for _, r := range all {
			byName[r.Name] = r
		}
		seen := map[string]bool{}
		for _, n := range names {
			if r, ok := byName[n]; ok && !seen[n] {
				seen[n] = true
				chosen = append(chosen, r)
			}
		}
	} else {
		chosen = keywordRecall(all, prompt)
	}
	if len(chosen) > max {
		chosen = chosen[:max]
	}
	if budget > 0 {
		var fit []Record
		used := 0
		for _, r := range chosen {
			n := len(formatRecord(r))
			if used+n > budget {
				continue
			}
			used += n
			fit = append(fit, r)
		}
		chosen = fit
	}
	return chosen, usage
}

func askNames(ctx context.Context, provider llm.Provider, model string, all []Record, prompt string, max int) ([]string, llm.Usage, error) {
	if provider == nil {
		return nil, llm.Usage{}, errors.New("no provider")
	}
	var idx strings.Builder
	for _, r := range all {
		fmt.Fprintf(&idx, "%s (%s): %s\n", r.Name, r.Type, r.Description)
	}
	req := &llm.Request{
		Model:     model,
		System:    fmt.Sprintf(recallSystem, max),
		Messages:  []llm.Message{llm.UserText("Request:\n" + textcut.Bytes(prompt, 4000, "") + "\n\nMemories:\n" + idx.String())},
		MaxTokens: 256,
	}
	resp, err := provider.Complete(ctx, req, nil)
	if err != nil {
		return nil, llm.Usage{}, err
	}
	var names []string
	if err := llm.DecodeJSONIn(resp.Message.Text(), '[', ']', &names); err != nil {
		return nil, resp.Usage, err
	}
	return names, resp.Usage, nil
}

var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "are": true,
	"was": true, "you": true, "what": true, "how": true, "can": true, "use": true, "not": true,
	"from": true, "have": true, "has": true, "our": true, "does": true, "should": true, "which": true,
	"please": true, "into": true, "about": true, "when": true, "where": true, "its": true,
}

// keywordRecall ranks records by how many of the prompt's words they share, each word
// reduced to its stem so that "indentation" meets "indented".
func keywordRecall(all []Record, prompt string) []Record {
	return keywordRecallWith(all, prompt, stem)
}

func keywordRecallWith(all []Record, prompt string, stem func(string) string) []Record {
	q := map[string]bool{}
	for _, w := range words(prompt) {
		if !stopWords[w] && !english.IsStopWord(w) {
			q[stem(w)] = true
		}
	}
	type scored struct {
		r Record
		n int
	}
	var out []scored
	for _, r := range all {
		hit := map[string]bool{}
		for _, w := range words(r.Name + " " + r.Description + " " + r.Body) {
			if s := stem(w); q[s] {
				hit[s] = true
			}
		}
		if len(hit) > 0 {
			out = append(out, scored{r, len(hit)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].n > out[j].n })
	rs := make([]Record, len(out))
	for i, s := range out {
		rs[i] = s.r
	}
	return rs
}

// stem is the Snowball (Porter 2) English stem of w: "indentation", "indented" and
// "indents" all become "indent", "migration" and "migrate" "migrat". Words that are not
// English (or not words) come back as they are.
func stem(w string) string {
	return english.Stem(w, true)
}

func formatRecord(r Record) string {
	body := r.Body
	if body == "" {
		body = r.Description
	}
	date := ""
	if !r.Updated.IsZero() {
		date = ", saved " + r.Updated.Format("2006-01-02")
	}
	return fmt.Sprintf("## %s (%s%s)\n%s\n", r.Name, r.Type, date, body)
}

// Format renders recalled records as the reminder block the Recaller injects.
func Format(rs []Record) string {
	if len(rs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<system-reminder>\nMemories from earlier sessions that may be relevant (they may be out of date; verify before relying on them):\n\n")
	for _, r := range rs {
		b.WriteString(formatRecord(r))
		b.WriteString("\n")
	}
	b.WriteString("</system-reminder>")
	return b.String()
}

// Recaller is the agent.BeforeModel seam that, on the first model call of each user turn,
// recalls the records relevant to the user's message and adds them to that request only.
type Recaller struct {
	Provider llm.Provider // nil: keyword recall only
	Model    string       // a small, fast model
	Stores   []*Store     // project and user stores
	Max      int          // records per turn; 0 means MaxRecall
	Budget   int          // characters per turn; 0 means 4000
	// OnRecall, when set, is told what was injected (for logs and the UI).
	OnRecall func(rs []Record)
	// OnUsage, when set, is told what each selection call cost, so the run counts it.
	OnUsage func(llm.Usage)

	mu       sync.Mutex
	last     string
	recalled string // what the last user turn got, added again if its request is retried
}

var _ agent.BeforeModel = (*Recaller)(nil)

// BeforeModel implements agent.BeforeModel.
func (rc *Recaller) BeforeModel(ctx context.Context, t *agent.Turn) error {
	prompt, key, ok := userTurnStart(t)
	if !ok {
		return nil
	}
	rc.mu.Lock()
	if rc.last == key {
		// The same user turn again: a retry of its request (after prompt-too-long and
		// compaction) must still carry what was recalled for it; nothing is recalled anew.
		again := rc.recalled
		rc.mu.Unlock()
		if t.PromptTooLong && again != "" {
			t.AddEphemeral(llm.TextBlock(again))
		}
		return nil
	}
	rc.last, rc.recalled = key, ""
	rc.mu.Unlock()
	var all []Record
	for _, s := range rc.Stores {
		if s == nil {
			continue
		}
		rs, err := s.List()
		if err != nil {
			continue // a broken store must not stop the run
		}
		all = append(all, rs...)
	}
	budget := rc.Budget
	if budget <= 0 {
		budget = 4000
	}
	rs, usage := recallFrom(ctx, rc.Provider, rc.Model, all, prompt, rc.Max, budget)
	if rc.OnUsage != nil && usage != (llm.Usage{}) {
		rc.OnUsage(usage)
	}
	if len(rs) == 0 {
		return nil
	}
	text := Format(rs)
	rc.mu.Lock()
	rc.recalled = text
	rc.mu.Unlock()
	t.AddEphemeral(llm.TextBlock(text))
	if rc.OnRecall != nil {
		rc.OnRecall(rs)
	}
	return nil
}

// userTurnStart reports whether this call starts a user turn: the last message is the
// user's and carries text rather than tool results. key identifies the message.
func userTurnStart(t *agent.Turn) (prompt, key string, ok bool) {
	msgs := t.Req.Messages
	if t.Conv != nil {
		msgs = t.Conv.Messages
	}
	if len(msgs) == 0 {
		return "", "", false
	}
	last := msgs[len(msgs)-1]
	if last.Role != llm.RoleUser {
		return "", "", false
	}
	for _, b := range last.Content {
		if b.Type == llm.BlockToolResult {
			return "", "", false
		}
	}
	prompt = last.Text()
	if strings.TrimSpace(prompt) == "" {
		return "", "", false
	}
	return prompt, fmt.Sprintf("%d\x00%s", len(msgs), prompt), true
}
