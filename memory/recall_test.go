package memory

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/tool"
)

func seedStore(t *testing.T) *Store {
	t.Helper()
	s := Open(filepath.Join(t.TempDir(), "memory"), "project")
	for _, r := range []Record{
		{Name: "db-engine", Description: "The app database is Postgres 16 with pgx", Type: TypeProject, Source: "session s1 turn 3", Body: "The database is Postgres 16; queries use pgx, not database/sql."},
		{Name: "tabs", Description: "User prefers tabs over spaces in YAML", Type: TypeUser, Source: "session s1 turn 5"},
		{Name: "ci-docs", Description: "CI pipeline documentation lives in the wiki", Type: TypeReference, Source: "session s1 turn 7"},
	} {
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestRecallModelAndFallback(t *testing.T) {
	s := seedStore(t)
	small := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "```json\n[\"tabs\", \"nonexistent\", \"db-engine\"]\n```"}}})
	rs, err := Recall(context.Background(), small, "small", s, "write the migration", 5, 0)
	if err != nil || len(rs) != 2 || rs[0].Name != "tabs" || rs[1].Name != "db-engine" {
		t.Fatalf("recall = %+v, %v", rs, err)
	}
	req := small.Requests()[0]
	if !strings.Contains(req.Messages[0].Text(), "db-engine (project): The app database is Postgres 16") {
		t.Errorf("index not sent: %s", req.Messages[0].Text())
	}
	// A failing model falls back to keywords.
	bad := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Fault: &scripted.Fault{Status: 400, Message: "bad"}}}})
	rs, err = Recall(context.Background(), bad, "small", s, "which database do we use?", 5, 0)
	if err != nil || len(rs) != 1 || rs[0].Name != "db-engine" {
		t.Fatalf("fallback = %+v, %v", rs, err)
	}
	rs, _ = Recall(context.Background(), nil, "", s, "unrelated question about kittens", 5, 0)
	if len(rs) != 0 {
		t.Errorf("keyword recall matched unrelated: %+v", rs)
	}
	// Budget drops what does not fit.
	rs, _ = Recall(context.Background(), nil, "", s, "database postgres", 5, 20)
	if len(rs) != 0 {
		t.Errorf("budget ignored: %+v", rs)
	}
}

// A fact saved in session 1 reaches the first request of session 2, once per user turn.
// The recall model reads at most 4,000 bytes of the request; the cut must leave valid
// text, with no Chinese character or emoji split.
func TestRecallCutsALongChinesePromptCleanly(t *testing.T) {
	s := seedStore(t)
	small := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: `["db-engine"]`}}})
	const family = "👨‍👩‍👧"
	prompt := "xy" + strings.Repeat("代理循环工具"+family, 200)
	if _, err := Recall(context.Background(), small, "small", s, prompt, 5, 0); err != nil {
		t.Fatal(err)
	}
	text := small.Requests()[0].Messages[0].Text()
	if !utf8.ValidString(text) {
		t.Fatalf("the recall request is not valid UTF-8: %q", text[:100])
	}
	sent, _, _ := strings.Cut(strings.TrimPrefix(text, "Request:\n"), "\n\nMemories:")
	if len(sent) > 4000 || len(sent) < 3970 || !strings.HasPrefix(prompt, sent) {
		t.Errorf("sent %d bytes of the request, want its start cut at a whole character within 4000", len(sent))
	}
	for _, r := range strings.ReplaceAll(strings.TrimPrefix(sent, "xy"), family, "") {
		if !strings.ContainsRune("代理循环工具", r) {
			t.Fatalf("the cut split an emoji: %q is left of it", r)
		}
	}
}

func TestRecallerAcrossSessions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	// Session 1 saves the fact.
	if err := Open(dir, "project").Save(Record{Name: "db-engine", Description: "The app database is Postgres 16", Type: TypeProject, Source: "session s1 turn 3"}); err != nil {
		t.Fatal(err)
	}
	// Session 2: a fresh store value over the same directory.
	small := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: `["db-engine"]`}}})
	rc := &Recaller{Provider: small, Model: "small", Stores: []*Store{Open(dir, "project")}}
	main := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ExpectContains: "Postgres 16", ToolCalls: []scripted.ToolCall{{Name: "Echo"}}},
		{Text: "done"},
	}})
	a, err := agent.New(agent.Config{Provider: main, Model: "claude-sonnet-5-5", Tools: tool.NewRegistry(), BeforeModel: []agent.BeforeModel{rc}})
	if err != nil {
		t.Fatal(err)
	}
	conv := &agent.Conversation{}
	out := a.Run(context.Background(), conv, llm.TextBlock("add a column to the users table"))
	if !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	reqs := main.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Text(), "Postgres") {
		t.Error("recalled again on a tool-result call of the same turn")
	}
	if len(small.Requests()) != 1 {
		t.Errorf("recall model called %d times", len(small.Requests()))
	}
	for _, m := range conv.Messages {
		if strings.Contains(m.Text(), "<system-reminder>") {
			t.Error("recalled memory entered the history")
		}
	}
}

func TestRecallerKeywordWithoutModel(t *testing.T) {
	s := seedStore(t)
	var got []Record
	rc := &Recaller{Stores: []*Store{s, nil}, OnRecall: func(rs []Record) { got = rs }}
	conv := &agent.Conversation{Messages: []llm.Message{llm.UserText("is the database postgres?")}}
	turn := &agent.Turn{Number: 1, Conv: conv, Req: &llm.Request{Messages: conv.Messages}}
	if err := rc.BeforeModel(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "db-engine" || !strings.Contains(turn.Req.Messages[0].Text(), "Postgres 16") {
		t.Fatalf("recalled %+v; request %q", got, turn.Req.Messages[0].Text())
	}
	if len(conv.Messages[0].Content) != 1 {
		t.Error("conversation changed")
	}
	// The same turn seen again (a retry) is not recalled twice.
	got = nil
	turn = &agent.Turn{Number: 2, Conv: conv, Req: &llm.Request{Messages: conv.Messages}}
	_ = rc.BeforeModel(context.Background(), turn)
	if got != nil {
		t.Error("recalled twice for one user turn")
	}
}

// The selection call's usage is reported, and a request retried after prompt-too-long
// carries the same memories again without a second selection call.
func TestRecallerReportsUsageAndKeepsMemoriesOnRetry(t *testing.T) {
	s := seedStore(t)
	small := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: `["db-engine"]`, Usage: &llm.Usage{InputTokens: 120, OutputTokens: 7}}}})
	var spent llm.Usage
	rc := &Recaller{Provider: small, Model: "small", Stores: []*Store{s}, OnUsage: func(u llm.Usage) { spent = spent.Add(u) }}
	conv := &agent.Conversation{Messages: []llm.Message{llm.UserText("which database?")}}
	turn := &agent.Turn{Number: 1, Conv: conv, Req: &llm.Request{Messages: conv.Messages}}
	if err := rc.BeforeModel(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	if spent != (llm.Usage{InputTokens: 120, OutputTokens: 7}) {
		t.Errorf("usage reported = %+v", spent)
	}
	retry := &agent.Turn{Number: 1, Conv: conv, Req: &llm.Request{Messages: conv.Messages}, PromptTooLong: true}
	if err := rc.BeforeModel(context.Background(), retry); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(retry.Req.Messages[len(retry.Req.Messages)-1].Text(), "Postgres 16") {
		t.Error("the retried request lost the recalled memory")
	}
	if n := len(small.Requests()); n != 1 {
		t.Errorf("selection model called %d times, want once", n)
	}
}
