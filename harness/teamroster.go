package harness

import (
	"context"
	"sync"
	"time"

	"github.com/ouroagent/ouro/team/registry"
)

// roster names the team's members in other processes: those the status files on this
// machine show and, with a shared store, the workers the registry holds as alive on any
// machine, so that SendMessage reaches a teammate by name wherever it runs. The
// registry is opened at the first lookup and kept.
type roster struct {
	dir, team, store, home string

	once sync.Once
	reg  registry.Store
}

func (r *roster) names(ctx context.Context) []string {
	names := teamRoster(r.dir, r.team)
	if r.store == "" {
		return names // this machine's workers all write status files
	}
	r.once.Do(func() {
		octx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		r.reg, _ = OpenRegistry(octx, r.store, r.home)
	})
	if r.reg == nil {
		return names
	}
	ws, err := r.reg.List(ctx, r.team)
	if err != nil {
		return names
	}
	now := time.Now()
	for _, w := range ws {
		if w.StateAt(now) == registry.Alive {
			names = append(names, w.Name)
		}
	}
	return names
}

func (r *roster) close() {
	if r.reg != nil {
		r.reg.Close()
	}
}
