package workflow

import (
	"regexp"
	"sync"
)

// askedForRE is the word "workflow" (or "workflows", any case) standing on its own.
// Compiled on first use: package init stays lean.
var askedForRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[^\pL\pN_])workflows?($|[^\pL\pN_])`)
})

// AskedFor reports whether a prompt the user typed asks for a workflow: it has the word
// "workflow" or "workflows" (any case; not inside another word such as "workflowish" or
// "myworkflow"). Claude Code offers its Workflow tool on the user's words; its reference
// names none, so ouro takes this one. Only the user's own prompt counts, never the text
// of a file, a skill or a tool result.
func AskedFor(prompt string) bool { return askedForRE().MatchString(prompt) }
