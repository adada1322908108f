package hook_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Hook output is text from outside that reaches the conversation: it gets the tool
// output budget, head and tail kept, the whole saved to a file named in the text.
const withinBudget = tool.DefaultOutputBudget + 400

var spillRe = regexp.MustCompile(`the full output is in (\S+\.txt);`)

// spilled checks that text is within the budget and names a spill file holding want,
// and returns the file's content.
func spilled(t *testing.T, what, text string, wants ...string) string {
	t.Helper()
	if n := utf8.RuneCountInString(text); n > withinBudget {
		t.Fatalf("%s is %d characters, over the budget", what, n)
	}
	m := spillRe.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s names no spill file:\n%.500s", what, text)
	}
	data, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatalf("%s: spill file: %v", what, err)
	}
	for _, w := range wants {
		if !strings.Contains(string(data), w) {
			t.Errorf("%s: spill file lacks %q", what, w)
		}
	}
	return string(data)
}

func TestHugeHookOutputIsBoundedAndSpilled(t *testing.T) {
	e := newEnv(t)
	spill := t.TempDir()
	withSpill := func(c *hook.Config) { c.SpillDir = spill }
	ctx := context.Background()
	// 10 MB on stderr with exit 2: the reason the call is denied with.
	deny := e.script(`echo FIRST-LINE >&2; head -c 10000000 /dev/zero | tr '\0' 'x' >&2; echo; echo LAST-LINE >&2; exit 2`)
	r := e.runner(on("PreToolUse", "Bash", deny), withSpill)
	v := r.PreToolUse(ctx, bash("t1", "ls"))
	if v.Decision != "deny" || !strings.Contains(v.Reason, "FIRST-LINE") || !strings.Contains(v.Reason, "LAST-LINE") {
		t.Fatalf("verdict %s, reason head/tail missing: %.300s", v.Decision, v.Reason)
	}
	all := spilled(t, "PreToolUse reason", v.Reason, "FIRST-LINE", "LAST-LINE", "bytes of the hook's output were not kept")
	if len(all) > 2<<20 {
		t.Errorf("kept %d bytes of the hook's stderr; reading it must be bounded", len(all))
	}
	for _, run := range e.reported() {
		if len(run.Message) > 2*withinBudget {
			t.Errorf("the observer (audit) got %d bytes", len(run.Message))
		}
	}

	// A huge additionalContext, reason and systemMessage in JSON output.
	big := strings.Repeat("y", 300_000)
	js := e.script(`printf '{"systemMessage":"SYS-` + big + `","decision":"block","reason":"WHY-` + big + `","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"CTX-` + big + `"}}'`)
	r = e.runner(on("PostToolUse", "Bash", js), withSpill)
	res := tool.Text("ran")
	r.PostToolUse(ctx, bash("t2", "ls"), &res)
	var added string
	for _, b := range res.Content[1:] {
		if b.Type == llm.BlockText {
			added += b.Text
		}
	}
	if n := utf8.RuneCountInString(added); n > 2*withinBudget {
		t.Fatalf("PostToolUse added %d characters to the result", n)
	}
	for _, piece := range strings.Split(added, "PostToolUse hook ")[1:] {
		spilled(t, "PostToolUse note", piece)
	}
	spilled(t, "systemMessage", e.shown(), "SYS-")

	// Plain stdout of a UserPromptSubmit hook becomes context.
	plain := e.script(`head -c 5000000 /dev/zero | tr '\0' 'z'; echo; echo END-OF-CONTEXT`)
	r = e.runner(on("UserPromptSubmit", "", plain), withSpill)
	extra, blocked, _, err := r.UserPromptSubmit(ctx, "hi")
	if blocked || err != nil {
		t.Fatalf("blocked %v, %v", blocked, err)
	}
	if !strings.Contains(extra, "END-OF-CONTEXT") {
		t.Errorf("the end of the output was lost")
	}
	spilled(t, "UserPromptSubmit context", extra)
}

// A hook that prints without end is bounded in memory and stopped by its timeout.
func TestEndlessHookOutputIsBounded(t *testing.T) {
	e := newEnv(t)
	endless := e.script(`yes 'all work and no play'`)
	hooks := on("SessionStart", "", endless)
	hooks["SessionStart"][0].Hooks[0].Timeout = 2
	r := e.runner(hooks, func(c *hook.Config) { c.SpillDir = t.TempDir() })
	extra := r.SessionStart(context.Background(), "startup")
	if extra != "" {
		t.Errorf("a timed-out hook gave context: %.200s", extra)
	}
	runs := e.reported()
	if len(runs) != 1 || runs[0].Outcome != hook.OutcomeTimeout {
		t.Fatalf("runs = %+v", runs)
	}
}

// JSON output too long to be kept whole is reported, not misread as plain text.
func TestOverlongJSONOutputIsAnError(t *testing.T) {
	e := newEnv(t)
	js := e.script(`printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"'; head -c 3000000 /dev/zero | tr '\0' 'c'; printf '"}}'`)
	r := e.runner(on("SessionStart", "", js), func(c *hook.Config) { c.SpillDir = t.TempDir() })
	if extra := r.SessionStart(context.Background(), "startup"); extra != "" {
		t.Errorf("the cut JSON became context: %.200s", extra)
	}
	runs := e.reported()
	if len(runs) != 1 || runs[0].Outcome != hook.OutcomeError || !strings.Contains(runs[0].Message, "JSON output is longer than") {
		t.Fatalf("runs = %+v", runs)
	}
}

// What a hook prints reaches the model with its control characters escaped: a deny reason
// on stderr and additionalContext in JSON output alike.
func TestHookOutputControlsAreEscaped(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	deny := e.script(`printf 'no\000 \033]52;c;aGk=\007 \033[2J' >&2; exit 2`)
	v := e.runner(on("PreToolUse", "Bash", deny)).PreToolUse(ctx, bash("t1", "ls"))
	if v.Decision != "deny" || v.Reason != `no\x00 \x1b]52;c;aGk=\x07 \x1b[2J` {
		t.Fatalf("verdict %s, reason %q", v.Decision, v.Reason)
	}
	js := e.script(`printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ctx \\u001b[2J \\u0000 end"}}'`)
	res := tool.Text("ran")
	e.runner(on("PostToolUse", "Bash", js)).PostToolUse(ctx, bash("t2", "ls"), &res)
	var added string
	for _, b := range res.Content[1:] {
		added += b.Text
	}
	if !strings.Contains(added, `ctx \x1b[2J \x00 end`) || strings.ContainsAny(added, "\x1b\x00") {
		t.Fatalf("additionalContext: %q", added)
	}
}
