package task

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/todo"
)

// The mirror of a long list keeps the open tasks and says how many it left out.
func TestMirrorIsBounded(t *testing.T) {
	var list []Task
	for i := 1; i <= 300; i++ {
		st := Completed
		if i%3 == 0 {
			st = Pending
		}
		list = append(list, Task{ID: fmt.Sprint(i), Subject: "s", Status: st})
	}
	items := mirror(list)
	if len(items) != maxMirror || !strings.Contains(items[len(items)-1].Content, "251 more tasks") {
		t.Fatalf("%d items, last %q", len(items), items[len(items)-1].Content)
	}
	for _, it := range items[:len(items)-1] {
		if it.Status != todo.Pending {
			t.Fatalf("a completed task was kept before an open one: %+v", it)
		}
	}
}
