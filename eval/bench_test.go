package eval

import (
	"context"
	"testing"
)

// BenchmarkTaskSetScripted is the whole shipped task set with its reference
// trajectories: the target is under a minute on a 2-core machine.
//
//	go test -run NONE -bench TaskSet -benchtime 1x ./eval
func BenchmarkTaskSetScripted(b *testing.B) {
	tasks, err := LoadTasks("tasks")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rep, err := Run(context.Background(), Options{Tasks: tasks, Model: Scripted, Out: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Overall.SuccessRate != 1 {
			b.Fatalf("a reference run failed: %+v", rep.Overall)
		}
	}
}
