package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/tool"
)

// fakeAsker answers from a script and records what it was asked.
type fakeAsker struct {
	answers []Answer
	err     error
	asked   [][]Question
}

func (f *fakeAsker) Ask(ctx context.Context, qs []Question) ([]Answer, error) {
	f.asked = append(f.asked, qs)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return f.answers, f.err
}

const twoQuestions = `{"questions": [
  {"question": "Which database should we use?", "header": "Database", "multiSelect": false,
   "options": [{"label": "Postgres (Recommended)", "description": "Relational, already deployed"},
               {"label": "SQLite", "description": "Embedded, no server"}]},
  {"question": "Which checks should run in CI?", "header": "CI checks", "multiSelect": true,
   "options": [{"label": "Lint", "description": "golangci-lint"},
               {"label": "Race", "description": "go test -race"},
               {"label": "Fuzz", "description": ""}]}
]}`

func TestAskUserQuestionSpec(t *testing.T) {
	a := NewAskUserQuestion(nil)
	spec := a.Spec()
	if spec.Name != "AskUserQuestion" || !a.ReadOnly() {
		t.Fatalf("name %q, read-only %v; want AskUserQuestion, true", spec.Name, a.ReadOnly())
	}
	var schema struct {
		Required   []string `json:"required"`
		Properties struct {
			Questions struct {
				MinItems int `json:"minItems"`
				MaxItems int `json:"maxItems"`
				Items    struct {
					Required   []string `json:"required"`
					Properties struct {
						Options struct {
							MinItems int `json:"minItems"`
							MaxItems int `json:"maxItems"`
							Items    struct {
								Required []string `json:"required"`
							} `json:"items"`
						} `json:"options"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"questions"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(spec.InputSchema, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	q := schema.Properties.Questions
	o := q.Items.Properties.Options
	if strings.Join(schema.Required, ",") != "questions" || q.MinItems != 1 || q.MaxItems != 4 ||
		strings.Join(q.Items.Required, ",") != "question,header,options,multiSelect" ||
		o.MinItems != 2 || o.MaxItems != 4 || strings.Join(o.Items.Required, ",") != "label,description" {
		t.Errorf("schema does not match Claude Code's: %s", spec.InputSchema)
	}
}

func TestAskUserQuestionInteractive(t *testing.T) {
	asker := &fakeAsker{answers: []Answer{
		{Question: "Which database should we use?", Labels: []string{"SQLite"}},
		{Question: "Which checks should run in CI?", Labels: []string{"Lint", "Race"}, Text: "and vet"},
	}}
	res, err := NewAskUserQuestion(asker).Run(context.Background(), tool.ExecInput(json.RawMessage(twoQuestions)))
	if err != nil {
		t.Fatal(err)
	}
	want := `User has answered your questions: "Which database should we use?"="SQLite", "Which checks should run in CI?"="Lint, Race, and vet". You can now continue with the user's answers in mind.`
	if res.Text() != want || res.IsError || res.NeedsInput != "" {
		t.Errorf("got %q (is_error %v, needs_input %q)\nwant %q", res.Text(), res.IsError, res.NeedsInput, want)
	}
	if len(asker.asked) != 1 || len(asker.asked[0]) != 2 {
		t.Fatalf("asker was asked %v", asker.asked)
	}
	q := asker.asked[0][1]
	if q.Header != "CI checks" || !q.MultiSelect || len(q.Options) != 3 || q.Options[1] != (Option{"Race", "go test -race"}) {
		t.Errorf("asker got %+v", q)
	}
}

func TestAskUserQuestionAskerOutcomes(t *testing.T) {
	one := `{"questions": [{"question": "Go on?", "header": "Continue", "multiSelect": false,
	  "options": [{"label": "Yes", "description": "carry on"}, {"label": "No", "description": "stop"}]}]}`
	cases := []struct {
		name    string
		asker   *fakeAsker
		cancel  bool
		want    string
		wantErr error
	}{
		{"free text only", &fakeAsker{answers: []Answer{{Question: "Go on?", Text: "only the tests"}}}, false, `"Go on?"="only the tests"`, nil},
		{"skipped", &fakeAsker{answers: []Answer{{Question: "Go on?"}}}, false, `"Go on?"="(no answer)"`, nil},
		{"too few answers", &fakeAsker{}, false, "got 0 answers to 1 questions", nil},
		{"asker fails", &fakeAsker{err: errors.New("terminal closed")}, false, "terminal closed", nil},
		{"cancelled", &fakeAsker{}, true, "", context.Canceled},
	}
	for _, tc := range cases {
		ctx, cancel := context.WithCancel(context.Background())
		if tc.cancel {
			cancel()
		}
		res, err := NewAskUserQuestion(tc.asker).Run(ctx, tool.ExecInput(json.RawMessage(one)))
		cancel()
		got := res.Text()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want it to contain %q", tc.name, got, tc.want)
		}
		if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err = %v, want it to wrap %v", tc.name, err, tc.wantErr)
		}
	}
}

func TestAskUserQuestionHeadless(t *testing.T) {
	a := NewAskUserQuestion(nil)
	res, err := a.Run(context.Background(), tool.ExecInput(json.RawMessage(twoQuestions)))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Errorf("is_error set")
	}
	if !strings.Contains(res.Text(), "not available") || !strings.Contains(res.Text(), "resume") {
		t.Errorf("content does not tell the model the user is away and the run ends: %q", res.Text())
	}
	want := `1. [Database] Which database should we use? (choose one)
   - Postgres (Recommended): Relational, already deployed
   - SQLite: Embedded, no server

2. [CI checks] Which checks should run in CI? (choose any)
   - Lint: golangci-lint
   - Race: go test -race
   - Fuzz

Any question may also be answered in your own words.`
	if res.NeedsInput != want {
		t.Errorf("NeedsInput:\n%s\nwant:\n%s", res.NeedsInput, want)
	}

	// Through the registry the result keeps NeedsInput for the loop.
	reg := tool.NewRegistry(a)
	if got := reg.Run(context.Background(), tool.Call{ID: "1", Name: "AskUserQuestion", Input: json.RawMessage(twoQuestions)}); got.NeedsInput != want {
		t.Errorf("registry dropped NeedsInput: %+v", got)
	}
}

func TestAskUserQuestionInvalidInput(t *testing.T) {
	opt := func(label string) string { return `{"label": "` + label + `", "description": "d"}` }
	q := func(question, header, options string) string {
		return `{"question": "` + question + `", "header": "` + header + `", "multiSelect": false, "options": [` + options + `]}`
	}
	ok2 := opt("A") + "," + opt("B")
	cases := []struct{ name, input, want string }{
		{"not an object", `[]`, "it must be a JSON object, got array"},
		{"no questions", `{}`, "questions is required"},
		{"empty questions", `{"questions": []}`, "questions must hold 1 to 4 questions, got 0"},
		{"five questions", `{"questions": [` + strings.Repeat(q("Q?", "H", ok2)+",", 4) + q("Q5?", "H", ok2) + `]}`, "got 5"},
		{"unknown field", `{"questions": [` + q("Q?", "H", ok2) + `], "answers": {}}`, `unknown field "answers"`},
		{"missing question", `{"questions": [{"header": "H", "multiSelect": false, "options": [` + ok2 + `]}]}`, "questions[0].question is required"},
		{"empty question", `{"questions": [` + q(" ", "H", ok2) + `]}`, "questions[0].question must not be empty"},
		{"duplicate question", `{"questions": [` + q("Q?", "H", ok2) + "," + q("Q?", "H2", ok2) + `]}`, `questions[1].question "Q?" repeats`},
		{"missing header", `{"questions": [{"question": "Q?", "multiSelect": false, "options": [` + ok2 + `]}]}`, "questions[0].header is required"},
		{"long header", `{"questions": [` + q("Q?", "Authentication", ok2) + `]}`, `questions[0].header "Authentication" has 14 characters; the limit is 12`},
		{"12-character header in runes", `{"questions": [` + q("Q?", "Überprüfung1", ok2) + `, ` + q("R?", "", ok2) + `]}`, "questions[1].header must not be empty"},
		{"missing multiSelect", `{"questions": [{"question": "Q?", "header": "H", "options": [` + ok2 + `]}]}`, "questions[0].multiSelect is required"},
		{"missing options", `{"questions": [{"question": "Q?", "header": "H", "multiSelect": true}]}`, "questions[0].options is required"},
		{"one option", `{"questions": [` + q("Q?", "H", opt("A")) + `]}`, "questions[0].options must hold 2 to 4 options, got 1"},
		{"five options", `{"questions": [` + q("Q?", "H", strings.Repeat(opt("A")+",", 4)+opt("E")) + `]}`, "got 5"},
		{"duplicate label", `{"questions": [` + q("Q?", "H", opt("A")+","+opt("A")) + `]}`, `questions[0].options[1].label "A" repeats`},
		{"empty label", `{"questions": [` + q("Q?", "H", opt("A")+","+opt("")) + `]}`, "questions[0].options[1].label must not be empty"},
		{"missing description", `{"questions": [` + q("Q?", "H", opt("A")+`,{"label": "B"}`) + `]}`, "questions[0].options[1].description is required"},
		{"wrong type", `{"questions": [{"question": "Q?", "header": "H", "multiSelect": "no", "options": [` + ok2 + `]}]}`, "questions.multiSelect must be a boolean, got string"},
		{"options not an array", `{"questions": [{"question": "Q?", "header": "H", "multiSelect": true, "options": "A, B"}]}`, "questions.options must be an array, got string"},
	}
	asker := &fakeAsker{}
	for _, tc := range cases {
		for _, a := range []*AskUserQuestion{NewAskUserQuestion(nil), NewAskUserQuestion(asker)} {
			res, err := a.Run(context.Background(), tool.ExecInput(json.RawMessage(tc.input)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
			}
			if res.NeedsInput != "" {
				t.Errorf("%s: invalid input still asked the user", tc.name)
			}
		}
	}
	if len(asker.asked) != 0 {
		t.Errorf("the asker was called for invalid input: %v", asker.asked)
	}

	// Every problem is named at once.
	_, err := NewAskUserQuestion(nil).Run(context.Background(), tool.ExecInput(json.RawMessage(
		`{"questions": [{"question": "", "header": "Far too long a header", "multiSelect": false, "options": [{"label": "A"}]}]}`)))
	for _, want := range []string{"question must not be empty", "header", "options must hold", "description is required"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("combined error %v does not mention %q", err, want)
		}
	}
}

// A background agent's question reaches nobody: refused at once, never put to the asker.
func TestAskUserQuestionInBackground(t *testing.T) {
	asker := &fakeAsker{}
	res, err := NewAskUserQuestion(asker).Run(background.Context(context.Background()), tool.ExecInput(json.RawMessage(twoQuestions)))
	if err != nil || !res.IsError || !strings.Contains(res.Text(), "You run in the background") || len(asker.asked) != 0 {
		t.Errorf("err %v, asked %v, %s", err, asker.asked, res.Text())
	}
}
