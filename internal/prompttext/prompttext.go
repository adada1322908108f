// Package prompttext shows a user message as the person typed it: the TUI sends a
// !command's input and output with the next prompt, wrapped in tags for the model
// (<bash-input>, <bash-stdout>, <bash-stderr>), and other mechanisms wrap what they
// add the same way. A list of prompts (/rewind) or a conversation shown again (on
// resume) should not show those tags.
package prompttext

import (
	"regexp"
	"strings"
)

// output tags hold what a command printed: not what was typed, so left out.
var output = map[string]bool{"bash-stdout": true, "bash-stderr": true, "local-command-stdout": true, "local-command-stderr": true}

// openTag is a wrapper's open tag at the start of a line.
var openTag = regexp.MustCompile(`^[ \t]*<([a-z][a-z0-9_-]*)>`)

// Readable is text with each !command's input as "! command", the commands' output left
// out, and the tags of other wrappers taken away (what they hold stays), one line each.
// A wrapper opens at the start of a line and closes, with the same name, at the end of
// one (maybe the same line): a tag inside a sentence ("fix the <div>") is not one.
func Readable(text string) string {
	var parts []string
	add := func(s string) {
		if s = strings.Trim(s, " \t\n"); s != "" {
			parts = append(parts, s)
		}
	}
	lines := strings.Split(text, "\n")
	start := 0 // the first line not yet added
	for i := 0; i < len(lines); i++ {
		m := openTag.FindStringSubmatchIndex(lines[i])
		if m == nil {
			continue
		}
		name := lines[i][m[2]:m[3]]
		closing := "</" + name + ">"
		for j := i; j < len(lines); j++ {
			from := 0
			if j == i {
				from = m[1]
			}
			end := strings.TrimRight(lines[j], " \t")
			if !strings.HasSuffix(end[min(from, len(end)):], closing) {
				continue
			}
			add(strings.Join(lines[start:i], "\n"))
			body := strings.Join(append([]string{lines[i][m[1]:]}, lines[i+1:j+1]...), "\n")
			body = strings.TrimSuffix(strings.TrimRight(body, " \t"), closing)
			switch {
			case name == "bash-input":
				add("! " + strings.TrimSpace(body))
			case output[name]:
			default:
				add(body)
			}
			start, i = j+1, j
			break
		}
	}
	add(strings.Join(lines[start:], "\n"))
	return strings.Join(parts, "\n")
}
