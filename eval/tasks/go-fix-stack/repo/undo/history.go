// Package undo keeps an undo history of text edits on a stack.
package undo

import "example.com/stack/stack"

// History records the text before each edit.
type History struct {
	past stack.Stack[string]
}

// Record saves the text as it was before an edit.
func (h *History) Record(before string) { h.past.Push(before) }

// Undo returns the text before the latest edit.
func (h *History) Undo() (string, bool) { return h.past.Pop() }

// Preview shows what Undo would return without undoing.
func (h *History) Preview() (string, bool) { return h.past.Peek() }
