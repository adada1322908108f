package wordcount

import (
	"reflect"
	"testing"
)

func TestCountPunctuation(t *testing.T) {
	got := Count("go, go! stop.")
	want := map[string]int{"go": 2, "stop": 1}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Count = %v, want %v", got, want)
	}
}

func TestCountIgnoresCase(t *testing.T) {
	got := Count("The cat saw the other cat. THE END")
	want := map[string]int{"the": 3, "cat": 2, "saw": 1, "other": 1, "end": 1}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Count = %v, want %v", got, want)
	}
}

func TestTop(t *testing.T) {
	got := Top(map[string]int{"b": 2, "a": 2, "c": 5, "d": 1}, 3)
	want := []Entry{{"c", 5}, {"a", 2}, {"b", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Top = %v, want %v", got, want)
	}
}
