package tool

import "strings"

// Failure kinds the registry itself produces, before or instead of running a tool: the
// calls that brought the model no new information (an evaluation counts them).
const (
	FailureUnknownTool  = "unknown_tool"  // no tool has that name
	FailureInvalidInput = "invalid_input" // the input is not an object or breaks the schema
	FailureRepeated     = "repeated"      // an identical call already failed, nothing changed since
)

// FailureKind names which of the registry's own refusals a result's text is, or "" for a
// result the tool produced (a real success or failure). It recognizes exactly the texts
// Registry.Run writes, so the two stay in one package.
func FailureKind(text string) string {
	switch {
	case strings.HasPrefix(text, "Unknown tool "):
		return FailureUnknownTool
	case strings.HasPrefix(text, "Invalid input for "):
		return FailureInvalidInput
	case strings.HasPrefix(text, "This exact ") && strings.Contains(text, "so it was not run again"):
		return FailureRepeated
	}
	return ""
}
