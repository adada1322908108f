package skill

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// Dynamic context (Claude Code): in a skill's or command's text, !`command` at the start
// of a line or after a space is replaced, when the skill is invoked, by what the command
// prints, so that the model starts from the live state (`!`git status``). Who runs the
// commands, and whether they may, is the caller's (harness: the permission gate and the
// sandbox, as for the model's own Bash calls). A fenced block opened with ```! holds
// several lines run as one command, its output in the block's place:
//
//	```!
//	git status --short
//	git log --oneline -5
//	```

// dynamicRE matches a ```! block (group 1 its lines) or !`command` (group 2 what
// precedes it, group 3 the command), in one pass, so that nothing a command prints is read
// for more commands.
var dynamicRE = regexp.MustCompile("(?m)^```![ \\t]*\\r?\\n((?s:.*?))\\r?\\n```[ \\t]*$|(^|[ \\t(])!`([^`\\n]+)`")

// MaxDynamic bounds the commands one invocation runs; the rest are left as written, with
// a note.
const MaxDynamic = 20

// HasDynamic reports whether text holds a !`command` or a ```! block.
func HasDynamic(text string) bool { return dynamicRE.MatchString(text) }

// ExpandDynamic replaces each !`command` and ```! block in text by run(ctx, command), in order, one
// command at a time; beyond MaxDynamic commands the rest stay as written, followed by
// a note saying so.
func ExpandDynamic(ctx context.Context, text string, run func(ctx context.Context, command string) string) string {
	n := 0
	skipped := 0
	out := dynamicRE.ReplaceAllStringFunc(text, func(m string) string {
		sub := dynamicRE.FindStringSubmatch(m)
		if n >= MaxDynamic {
			skipped++
			return m
		}
		n++
		if strings.HasPrefix(m, "```") {
			return strings.TrimRight(run(ctx, strings.TrimSpace(sub[1])), "\n")
		}
		return sub[2] + run(ctx, strings.TrimSpace(sub[3]))
	})
	if skipped > 0 {
		out += fmt.Sprintf("\n\n(ouro: %d more !`command` were not run: a skill runs at most %d)", skipped, MaxDynamic)
	}
	return out
}
