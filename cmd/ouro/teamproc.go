package main

import (
	"path/filepath"
	"slices"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/team"
)

// workersNotShown is teamWorkers without the worker files of the teammate processes the
// lead's snapshot s already shows (--team-process): the lead's view is the live one, and
// it knows when a worker died, which a dead worker's own file cannot say.
func workersNotShown(dir, list string, s team.Snapshot) []string {
	var skip []string
	for _, m := range s.Members {
		if m.Pid > 0 {
			skip = append(skip, harness.WorkerStatusPath(dir, list, m.Name))
		}
	}
	paths, _ := filepath.Glob(filepath.Join(dir, list+".worker-*.json"))
	var out []string
	for _, p := range paths {
		if !slices.Contains(skip, p) {
			out = append(out, renderWorkerFile(p))
		}
	}
	return out
}
