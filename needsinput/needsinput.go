// Package needsinput decides, for a run nobody can answer (ouro -p), whether the model's
// final answer ended the work or asked the person something (s01: when has a run really
// ended). A final answer whose last paragraph asks a question, such as "Which database
// should the service use?", ends the run needs_input (exit 3) with that question, as an
// AskUserQuestion call does; an offer after work was done ("Would you like me to add
// tests too?") does not, since the task itself is finished.
package needsinput

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
)

// JoinConfig says whether the session is headless: only then does a question end the run
// (a person at a terminal or an editor just answers it).
type JoinConfig struct {
	Headless bool
	// SmallModel is set for a model with a small context window (a local server's): when
	// its final answer carries code but it called no tool since the person's message, it
	// is sent back once to make the change with the tools (small models answer a fix
	// with a code block and stop, leaving the files as they were).
	SmallModel bool
}

// Join is the mechanism: a stop check in the goal phase, after the goal's own judge.
func Join(_ mechanism.Env, c JoinConfig) (mechanism.Part, error) {
	p := mechanism.Part{Name: "needs-input", Phase: mechanism.PhaseGoal}
	if c.Headless {
		p.BeforeStop = []agent.BeforeStop{&judge{small: c.SmallModel, nudged: -1}}
	}
	return p, nil
}

type judge struct {
	small bool
	mu    sync.Mutex
	// nudged is the index of the person's message whose turn was sent back already.
	nudged int
}

// codeOnly is what a small model is told when it answered with code and no tool call.
//
// Try 10 (docs/local-model.md) showed what it needs: the model had never read the file,
// so it made up its path and its content; the steps are spelled out, Read first.
const codeOnly = "You wrote code in your answer but called no tool, so no file has changed. To change a file: 1. call the Read tool on it (a relative path is taken from the working directory; Glob finds files you do not know), 2. call the Edit tool with old_string copied exactly from what Read showed and new_string the fixed text, 3. run the tests with the Bash tool. (A question needs no tool: then answer it again, briefly.)"

// BeforeStop implements agent.BeforeStop.
func (j *judge) BeforeStop(_ context.Context, s *agent.Stop) agent.StopDecision {
	did := worked(s.Conv)
	if j.small && !did && !s.Last && hasCode(s.Final.Text()) {
		at := lastPrompt(s.Conv)
		j.mu.Lock()
		again := j.nudged == at
		j.nudged = at
		j.mu.Unlock()
		if !again {
			return agent.StopDecision{Continue: true, Message: codeOnly}
		}
	}
	q, ok := Question(s.Final.Text(), did)
	if !ok {
		return agent.StopDecision{}
	}
	return agent.StopDecision{End: agent.StatusNeedsInput, Question: q,
		Reason: "the model's final answer asks the user a question and the run cannot wait for the answer"}
}

// hasCode reports whether text holds a fenced block of at least two lines.
func hasCode(text string) bool {
	for _, m := range fence.FindAllString(text, -1) {
		if strings.Count(strings.TrimSpace(m), "\n") >= 3 {
			return true
		}
	}
	return false
}

// lastPrompt is the index of the person's last message (not tool results, nor this
// check's own message), -1 if none.
func lastPrompt(c *agent.Conversation) int {
	if c == nil {
		return -1
	}
	for i := len(c.Messages) - 1; i >= 0; i-- {
		if m := c.Messages[i]; m.Role == llm.RoleUser && !hasToolResult(m) && m.Text() != codeOnly {
			return i
		}
	}
	return -1
}

// worked reports whether the model called any tool since the person's last message.
func worked(c *agent.Conversation) bool {
	if c == nil {
		return false
	}
	for i := len(c.Messages) - 1; i >= 0; i-- {
		m := c.Messages[i]
		if m.Role == llm.RoleUser && !hasToolResult(m) {
			return false
		}
		for _, b := range m.Content {
			if b.Type == llm.BlockToolUse {
				return true
			}
		}
	}
	return false
}

func hasToolResult(m llm.Message) bool {
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			return true
		}
	}
	return false
}

var (
	fence    = regexp.MustCompile("(?s)```.*?(```|$)")
	listItem = regexp.MustCompile(`^\s*([-*+•]|\d+[.)]|[a-zA-Z][.)])\s+\S`)
	// A sentence ends at . ! ? (or their full-width forms) followed by a space.
	sentenceEnd = regexp.MustCompile(`[.!?。！？][)"'’”]*\s+`)
)

// offers are how an answer that finished its task offers more; lower case, matched at
// the start of the question's sentence.
var offers = []string{
	"would you like", "do you want me", "want me to", "shall i", "should i also", "should i go ahead and also",
	"let me know", "is there anything else", "anything else", "need anything else", "would it help",
	"can i help", "how else", "would you prefer i also",
}

// Question is the question a final answer ends on, if it ends on one: its last
// paragraph (code blocks left out) ends with a question mark, or is a list of options
// after a paragraph that does. After work (worked), an offer of more is not a question
// that stops the run.
func Question(text string, worked bool) (string, bool) {
	text = fence.ReplaceAllString(text, "")
	var paras []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			paras = append(paras, p)
		}
	}
	if len(paras) == 0 {
		return "", false
	}
	last := paras[len(paras)-1]
	q := last
	if !asks(last) {
		if !isList(last) || len(paras) < 2 || !asks(paras[len(paras)-2]) {
			return "", false
		}
		q = paras[len(paras)-2] + "\n\n" + last
		last = paras[len(paras)-2]
	}
	if worked && isOffer(lastQuestionSentence(last)) {
		return "", false
	}
	return q, true
}

// asks reports whether a paragraph ends with a question mark, past closing emphasis.
func asks(p string) bool {
	p = strings.TrimRight(p, " \t*_`)\"'’”")
	return strings.HasSuffix(p, "?") || strings.HasSuffix(p, "？")
}

func isList(p string) bool {
	for _, l := range strings.Split(p, "\n") {
		if strings.TrimSpace(l) != "" && !listItem.MatchString(l) {
			return false
		}
	}
	return true
}

// lastQuestionSentence is the last sentence of p, the one its question mark ends.
func lastQuestionSentence(p string) string {
	p = strings.TrimRight(p, " \t*_`)\"'’”?？")
	if locs := sentenceEnd.FindAllStringIndex(p, -1); len(locs) > 0 {
		p = p[locs[len(locs)-1][1]:]
	}
	// A line of its own (after a heading or a list) is a sentence too.
	if i := strings.LastIndex(p, "\n"); i >= 0 {
		p = p[i+1:]
	}
	return strings.TrimLeft(p, " \t*_>#-")
}

func isOffer(sentence string) bool {
	s := strings.ToLower(strings.TrimSpace(sentence))
	s = strings.TrimPrefix(s, "if you'd like, ")
	for _, o := range offers {
		if strings.HasPrefix(s, o) {
			return true
		}
	}
	// "…, or would you like me to …?" and "Let me know if …" in the middle of it.
	return strings.Contains(s, "would you like me to") || strings.Contains(s, "let me know if") || strings.Contains(s, "do you want me to")
}
