package workflow_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/workflow"
)

func TestResolveRunID(t *testing.T) {
	ctx := context.Background()
	s := workflow.NewMemStore()
	for i, r := range []workflow.RunRecord{
		{ID: "wf_aaaa1111-x", Name: "audit"},
		{ID: "wf_aaaa2222-x", Name: "audit"},
		{ID: "wf_bbbb1111-x", Name: "review"},
		{ID: "wf_cccc1111-x", Name: "review-deep"},
	} {
		r.Started = time.Date(2026, 1, 1, i, 0, 0, 0, time.UTC)
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for arg, want := range map[string]string{
		"wf_aaaa1111-x": "wf_aaaa1111-x", // the id itself
		"wf_aaaa1":      "wf_aaaa1111-x", // its start
		"aaaa2":         "wf_aaaa2222-x", // without wf_
		"review":        "wf_bbbb1111-x", // a name run once, though another name begins so
		"review-d":      "wf_cccc1111-x", // the start of a name
	} {
		if got, err := workflow.ResolveRunID(ctx, s, arg); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %s", arg, got, err, want)
		}
	}
	for _, arg := range []string{"audit", "wf_aaaa", "aud"} {
		_, err := workflow.ResolveRunID(ctx, s, arg)
		if err == nil || !strings.Contains(err.Error(), "matches 2 workflow runs") ||
			!strings.Contains(err.Error(), "wf_aaaa1111-x") || !strings.Contains(err.Error(), "wf_aaaa2222-x") {
			t.Errorf("%s: %v, want the two candidates listed", arg, err)
		}
	}
	for _, arg := range []string{"nothing", "", "wf_d"} {
		if _, err := workflow.ResolveRunID(ctx, s, arg); !errors.Is(err, workflow.ErrNotFound) {
			t.Errorf("%q: %v, want ErrNotFound", arg, err)
		}
	}
}
