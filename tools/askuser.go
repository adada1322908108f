package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ouroagent/ouro/internal/bgtask"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Limits of AskUserQuestion's input, as in Claude Code.
const (
	maxQuestions   = 4
	minOptions     = 2
	maxOptions     = 4
	maxHeaderChars = 12
)

// Question is one multiple-choice question the model asks the user.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
}

// Option is one choice offered for a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// Answer is the user's reply to one question: the labels of the chosen options, text in
// the user's own words (the "Other" choice every question has), or both.
type Answer struct {
	Question string
	Labels   []string
	Text     string
}

// Asker puts questions to the user and waits for the answers, one Answer per Question,
// in the same order. It returns an error wrapping ctx.Err() when ctx ends first.
type Asker interface {
	Ask(ctx context.Context, questions []Question) ([]Answer, error)
}

// AskUserQuestion lets the model ask the user multiple-choice questions. Without an
// Asker (a headless run) it hands the questions to the loop as NeedsInput.
type AskUserQuestion struct {
	asker Asker
}

// NewAskUserQuestion returns the tool; asker nil means nobody is there to answer.
func NewAskUserQuestion(asker Asker) *AskUserQuestion {
	return &AskUserQuestion{asker: asker}
}

// ReadOnly implements tool.Tool: asking changes nothing.
func (a *AskUserQuestion) ReadOnly() bool { return true }

// Describe implements tool.Describer: a question to the user changes only the session.
func (a *AskUserQuestion) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

// Spec implements tool.Tool.
func (a *AskUserQuestion) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "AskUserQuestion", Description: askDescription, InputSchema: json.RawMessage(askSchema)}
}

const askDescription = `Asks the user up to 4 multiple-choice questions and waits for the answers. Use it when you need the user's decision to go on: an ambiguous instruction, a choice between approaches, a requirement only the user knows.
- Each question has a short header (max 12 characters) and 2-4 distinct options, each a label (1-5 words) and a description of what choosing it means.
- The user can always answer in their own words: do not add an "Other" option.
- Set multiSelect when several options can be chosen together.
- Put an option you recommend first and end its label with "(Recommended)".
- Not for approving a plan or a tool call: those are asked separately.`

const askSchema = `{
  "type": "object",
  "properties": {
    "questions": {
      "type": "array",
      "minItems": 1,
      "maxItems": 4,
      "items": {
        "type": "object",
        "properties": {
          "question": {"type": "string", "description": "The complete question, ending with a question mark"},
          "header": {"type": "string", "description": "Short label (max 12 chars), e.g. \"Auth method\""},
          "options": {
            "type": "array",
            "minItems": 2,
            "maxItems": 4,
            "items": {
              "type": "object",
              "properties": {
                "label": {"type": "string"},
                "description": {"type": "string"}
              },
              "required": ["label", "description"],
              "additionalProperties": false
            }
          },
          "multiSelect": {"type": "boolean", "default": false, "description": "Let the user choose several options"}
        },
        "required": ["question", "header", "options", "multiSelect"],
        "additionalProperties": false
      }
    }
  },
  "required": ["questions"],
  "additionalProperties": false
}`

// Run implements tool.Tool.
func (a *AskUserQuestion) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	qs, err := parseQuestions(input)
	if err != nil {
		return tool.Result{}, err
	}
	if bgtask.InBackground(ctx) {
		return tool.Errorf("You run in the background: nobody can answer questions here. Decide with what you have and say in your final report what you assumed and what the user should confirm."), nil
	}
	if a.asker == nil {
		res := tool.Text("The user is not available to answer questions in this run. The run ends here so the user can read your questions and answer them when the session is resumed; the answers will arrive as the next user message. Do not guess them.")
		res.NeedsInput = RenderQuestions(qs)
		return res, nil
	}
	answers, err := a.asker.Ask(ctx, qs)
	if err != nil {
		return tool.Result{}, fmt.Errorf("ask the user: %w", err)
	}
	if len(answers) != len(qs) {
		return tool.Result{}, fmt.Errorf("ask the user: got %d answers to %d questions", len(answers), len(qs))
	}
	pairs := make([]string, len(qs))
	for i, q := range qs {
		pairs[i] = fmt.Sprintf("%q=%q", q.Question, answerText(answers[i]))
	}
	return tool.Text("User has answered your questions: " + strings.Join(pairs, ", ") +
		". You can now continue with the user's answers in mind."), nil
}

func answerText(a Answer) string {
	parts := append([]string(nil), a.Labels...)
	if t := strings.TrimSpace(a.Text); t != "" {
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no answer)"
	}
	return strings.Join(parts, ", ")
}

// RenderQuestions renders questions for a person reading plain text, as shown when a
// headless run stops to wait for the user.
func RenderQuestions(qs []Question) string {
	var sb strings.Builder
	for i, q := range qs {
		if i > 0 {
			sb.WriteByte('\n')
		}
		how := "choose one"
		if q.MultiSelect {
			how = "choose any"
		}
		fmt.Fprintf(&sb, "%d. [%s] %s (%s)\n", i+1, q.Header, q.Question, how)
		for _, o := range q.Options {
			if o.Description == "" {
				fmt.Fprintf(&sb, "   - %s\n", o.Label)
			} else {
				fmt.Fprintf(&sb, "   - %s: %s\n", o.Label, o.Description)
			}
		}
	}
	sb.WriteString("\nAny question may also be answered in your own words.")
	return sb.String()
}

// The decoded input keeps pointers so a missing field can be told from an empty one.
type askInput struct {
	Questions *[]askQuestion `json:"questions"`
}

type askQuestion struct {
	Question    *string      `json:"question"`
	Header      *string      `json:"header"`
	Options     *[]askOption `json:"options"`
	MultiSelect *bool        `json:"multiSelect"`
}

type askOption struct {
	Label       *string `json:"label"`
	Description *string `json:"description"`
}

// parseQuestions decodes and checks the input, naming every problem with the path of
// the field, so the model can fix all of them in one retry.
func parseQuestions(raw json.RawMessage) ([]Question, error) {
	var in askInput
	if err := decodeInput("AskUserQuestion", raw, &in); err != nil {
		return nil, err
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if in.Questions == nil {
		return nil, errors.New("invalid AskUserQuestion input: questions is required")
	}
	qs := *in.Questions
	if len(qs) < 1 || len(qs) > maxQuestions {
		bad("questions must hold 1 to %d questions, got %d", maxQuestions, len(qs))
	}
	out := make([]Question, 0, len(qs))
	seenQ := map[string]bool{}
	for i, rq := range qs {
		p := fmt.Sprintf("questions[%d]", i)
		var q Question
		switch {
		case rq.Question == nil:
			bad("%s.question is required", p)
		case strings.TrimSpace(*rq.Question) == "":
			bad("%s.question must not be empty", p)
		case seenQ[*rq.Question]:
			bad("%s.question %q repeats an earlier question; question texts must be unique", p, *rq.Question)
		default:
			q.Question = *rq.Question
			seenQ[q.Question] = true
		}
		switch {
		case rq.Header == nil:
			bad("%s.header is required", p)
		case strings.TrimSpace(*rq.Header) == "":
			bad("%s.header must not be empty", p)
		case utf8.RuneCountInString(*rq.Header) > maxHeaderChars:
			bad("%s.header %q has %d characters; the limit is %d", p, *rq.Header, utf8.RuneCountInString(*rq.Header), maxHeaderChars)
		default:
			q.Header = *rq.Header
		}
		if rq.MultiSelect == nil {
			bad("%s.multiSelect is required (true or false)", p)
		} else {
			q.MultiSelect = *rq.MultiSelect
		}
		if rq.Options == nil {
			bad("%s.options is required", p)
			out = append(out, q)
			continue
		}
		opts := *rq.Options
		if len(opts) < minOptions || len(opts) > maxOptions {
			bad("%s.options must hold %d to %d options, got %d", p, minOptions, maxOptions, len(opts))
		}
		seenL := map[string]bool{}
		for j, ro := range opts {
			op := fmt.Sprintf("%s.options[%d]", p, j)
			var o Option
			switch {
			case ro.Label == nil:
				bad("%s.label is required", op)
			case strings.TrimSpace(*ro.Label) == "":
				bad("%s.label must not be empty", op)
			case seenL[*ro.Label]:
				bad("%s.label %q repeats an earlier option; labels must be unique within a question", op, *ro.Label)
			default:
				o.Label = *ro.Label
				seenL[o.Label] = true
			}
			if ro.Description == nil {
				bad("%s.description is required", op)
			} else {
				o.Description = *ro.Description
			}
			q.Options = append(q.Options, o)
		}
		out = append(out, q)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("invalid AskUserQuestion input: %s", strings.Join(problems, "; "))
	}
	return out, nil
}
