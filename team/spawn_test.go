package team_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/subagent"
)

// A Spawn with an isolation that does not exist is refused, and the team is still usable after it (the
// refusal used to leave the team's lock held: every later spawn, message and status hung).
func TestSpawnWithUnknownIsolationLeavesTheTeamUsable(t *testing.T) {
	f := newFixture(t, &router{byName: map[string]*scripted.Provider{"w1": scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "ready"}}})}})
	// The Agent tool refuses it first; the Spawner is an interface of its own.
	res := f.team.Spawn(context.Background(), nil, subagent.SpawnInput{Name: "w0", Prompt: "p", Isolation: "container"})
	if !res.IsError || !strings.Contains(res.Text(), `isolation "container" is not available`) {
		t.Fatalf("bad isolation: %s", res.Text())
	}
	done := make(chan struct{})
	go func() {
		f.spawn(t, "w1", "general-purpose", "Start.")
		f.team.Snapshot()
		close(done)
	}()
	waitFor(t, "the next spawn", func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
}
