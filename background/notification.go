package background

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/internal/textcut"
)

// Limits on what a notification carries; the output file holds everything.
const (
	tailLines   = 5
	tailBytes   = 600
	resultRunes = 20_000
)

// Notification is the <task-notification> Claude Code sends when a background task
// ends: its id, the call that started it, the output file, the status and a summary (for
// an agent, its final text in <result>), then a pointer to the output file and the last
// lines of output. Text that comes from the task is escaped so it cannot close the block
// or forge another.
func Notification(i Info, result, detail, tail string) string {
	var b strings.Builder
	b.WriteString("<task-notification>\n")
	fmt.Fprintf(&b, "<task-id>%s</task-id>\n", i.ID)
	if i.ToolUseID != "" {
		fmt.Fprintf(&b, "<tool-use-id>%s</tool-use-id>\n", escape(i.ToolUseID))
	}
	fmt.Fprintf(&b, "<output-file>%s</output-file>\n", escape(i.Output))
	fmt.Fprintf(&b, "<status>%s</status>\n", i.Status)
	fmt.Fprintf(&b, "<summary>%s</summary>\n", escape(Summary(i, detail)))
	if i.Kind != KindBash && result != "" {
		fmt.Fprintf(&b, "<result>%s</result>\n", escapeTags(textcut.Runes(result, resultRunes, "\n[… the rest is in the output file]")))
	}
	b.WriteString("</task-notification>\n")
	fmt.Fprintf(&b, "Read the output file to retrieve the result: %s", i.Output)
	if tail = strings.TrimSpace(tail); tail != "" && i.Kind == KindBash {
		fmt.Fprintf(&b, "\nLast lines of output:\n%s", escapeTags(tail))
	}
	return b.String()
}

// Summary is the one line saying what ended and how, in Claude Code's words.
func Summary(i Info, detail string) string {
	what := fmt.Sprintf("Background command %q", textcut.OneLine(i.Description, 200, "…"))
	switch i.Kind {
	case KindAgent:
		what = fmt.Sprintf("Agent %q", textcut.OneLine(i.Description, 200, "…"))
	case KindWorkflow:
		what = fmt.Sprintf("Workflow %q", textcut.OneLine(i.Description, 200, "…"))
	}
	return what + " " + describeEnd(i, detail)
}

// describeEnd says how a task ended: "completed (exit code 0)", "failed with exit code
// 1", "was stopped".
func describeEnd(i Info, detail string) string {
	switch i.Status {
	case StatusRunning:
		return "is still running"
	case StatusQueued:
		return "is queued and has not started"
	case StatusCompleted:
		if i.ExitCode != nil {
			return fmt.Sprintf("completed (exit code %d)", *i.ExitCode)
		}
		return "completed"
	case StatusKilled:
		if detail != "" {
			return "was stopped (" + textcut.OneLine(detail, 200, "…") + ")"
		}
		return "was stopped"
	}
	s := "failed"
	if i.ExitCode != nil && *i.ExitCode != 0 {
		s = fmt.Sprintf("failed with exit code %d", *i.ExitCode)
	}
	if detail != "" {
		s += ": " + textcut.OneLine(detail, 300, "…")
	}
	return s
}

// tailOf is the last few lines of an output file, bounded in size.
func tailOf(path string) string {
	data, _, err := tailBytesOf(path, 4096)
	if err != nil {
		return ""
	}
	s := textcut.LastLines(strings.TrimRight(string(data), "\n"), tailLines)
	if len(s) > tailBytes {
		s = "…" + s[len(s)-tailBytes:]
	}
	return strings.ToValidUTF8(s, "")
}

var htmlish = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escape(s string) string { return htmlish.Replace(s) }

// ourTags are the tags a notification is made of.
// Compiled on first use: package init stays lean.
var ourTags = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)<(/?)(task-notification|task-id|tool-use-id|output-file|status|summary|result)\b`)
})

// escapeTags keeps a task's own text (an agent's report, program output) readable while
// making sure it cannot open or close one of the notification's tags.
func escapeTags(s string) string { return ourTags().ReplaceAllString(s, "&lt;$1$2") }
