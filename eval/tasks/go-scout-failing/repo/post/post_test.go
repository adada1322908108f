package post

import (
	"testing"
	"time"
)

func TestPath(t *testing.T) {
	p := Post{Title: "Hello World", Published: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)}
	if got, want := p.Path(), "/2024/05/hello-world"; got != want {
		t.Fatalf("Path() = %q, want %q", got, want)
	}
}
