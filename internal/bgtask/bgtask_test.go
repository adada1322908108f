package bgtask

import (
	"context"
	"testing"
)

func TestContextMarksOnlyWhatItWraps(t *testing.T) {
	plain := context.Background()
	marked := Context(plain)
	if InBackground(plain) {
		t.Error("an unmarked context reads as a background agent's")
	}
	if !InBackground(marked) {
		t.Error("a marked context does not read as a background agent's")
	}
	child, cancel := context.WithCancel(marked)
	defer cancel()
	if !InBackground(child) {
		t.Error("the mark is lost in a context derived from a marked one")
	}
}
