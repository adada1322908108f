package stack

import "testing"

func TestPushPop(t *testing.T) {
	var s Stack[int]
	s.Push(1)
	s.Push(2)
	s.Push(3)
	for _, want := range []int{3, 2, 1} {
		got, ok := s.Pop()
		if !ok || got != want {
			t.Fatalf("Pop() = %d, %v; want %d, true", got, ok, want)
		}
	}
	if _, ok := s.Pop(); ok {
		t.Fatal("Pop on an empty stack returned ok")
	}
}

func TestPeekReturnsTop(t *testing.T) {
	var s Stack[string]
	s.Push("a")
	s.Push("b")
	got, ok := s.Peek()
	if !ok || got != "b" {
		t.Fatalf("Peek() = %q, %v; want \"b\", true", got, ok)
	}
	if s.Len() != 2 {
		t.Fatalf("Peek changed the length to %d", s.Len())
	}
}
