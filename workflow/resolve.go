package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ResolveRunID finds the run arg names: its id, else the only run whose id begins with
// arg (with or without the wf_), else the only run of the workflow named arg, else the
// only run whose workflow's name begins with arg. Several runs at the first of those
// that matches any is an error listing them; none is ErrNotFound.
func ResolveRunID(ctx context.Context, s Store, arg string) (string, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return "", fmt.Errorf("which workflow run? %w", ErrNotFound)
	}
	if _, err := s.Run(ctx, arg); err == nil {
		return arg, nil
	} else if !errors.Is(err, ErrNotFound) {
		return "", err
	}
	runs, err := s.Runs(ctx)
	if err != nil {
		return "", err
	}
	tiers := []func(RunRecord) bool{
		func(r RunRecord) bool {
			return strings.HasPrefix(r.ID, arg) || strings.HasPrefix(r.ID, "wf_"+arg)
		},
		func(r RunRecord) bool { return r.Name == arg },
		func(r RunRecord) bool { return strings.HasPrefix(r.Name, arg) },
	}
	for _, match := range tiers {
		var found []RunRecord
		for _, r := range runs {
			if match(r) {
				found = append(found, r)
			}
		}
		switch {
		case len(found) == 1:
			return found[0].ID, nil
		case len(found) > 1:
			return "", ambiguous(arg, found)
		}
	}
	return "", fmt.Errorf("%w %s", ErrNotFound, arg)
}

// ambiguous says which runs arg could mean, newest first.
func ambiguous(arg string, runs []RunRecord) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%q matches %d workflow runs; give more of the id:", arg, len(runs))
	now := time.Now()
	for i, r := range runs {
		if i == 20 {
			fmt.Fprintf(&b, "\n  … and %d older", len(runs)-20)
			break
		}
		fmt.Fprintf(&b, "\n  %s  %-10s %-16s %s", r.ID, r.Name, r.Shown(now), r.Started.Local().Format("2006-01-02 15:04"))
	}
	return errors.New(b.String())
}
