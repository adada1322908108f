package team

import (
	"context"
	"slices"
	"strings"
)

// elsewhere names the teammates of the team running in other processes (Config.Roster):
// valid teammate names only, never the lead's, without this process's own members.
func (t *Team) elsewhere(ctx context.Context) []string {
	if t.cfg.Roster == nil {
		return nil
	}
	var out []string
	for _, n := range t.cfg.Roster(ctx) {
		if !nameRE().MatchString(n) || strings.EqualFold(n, Lead) || t.member(n) != nil || slices.Contains(out, n) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// mergeNames adds the names of b missing from a.
func mergeNames(a, b []string) []string {
	for _, n := range b {
		if !slices.Contains(a, n) {
			a = append(a, n)
		}
	}
	return a
}
