package tui

import "github.com/ouroagent/ouro/internal/termsafe"

// clean makes text from the model, a tool or a file safe to draw: a lying model or a
// hostile file could otherwise send the terminal its own escape sequences (clear the
// screen, retitle the window, fake a dialog, write to the clipboard). Control characters
// other than newline and tab are shown escaped (ESC reads \x1b), as in every other view.
func clean(s string) string { return termsafe.Escape(s) }
