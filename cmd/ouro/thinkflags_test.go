package main

import (
	"strings"
	"testing"

	"github.com/ouroagent/ouro/harness"
)

func TestThinkFlags(t *testing.T) {
	for _, c := range []struct {
		f       thinkFlags
		budget  int // -1: no thinking option
		effort  string
		wantErr string
	}{
		{f: thinkFlags{}, budget: -1},
		{f: thinkFlags{effort: "MAX"}, budget: -1, effort: "max"},
		{f: thinkFlags{effort: "ultra"}, wantErr: `--effort: effort "ultra" is not one of`},
		{f: thinkFlags{thinking: "adaptive"}, budget: 31999},
		{f: thinkFlags{thinking: "enabled", maxTokens: "2000"}, budget: 2000},
		{f: thinkFlags{thinking: "adaptive", maxTokens: "0"}, budget: 0},
		{f: thinkFlags{maxTokens: "100"}, budget: 1024},
		{f: thinkFlags{thinking: "disabled"}, budget: 0},
		{f: thinkFlags{thinking: "disabled", maxTokens: "5000"}, wantErr: "contradicts"},
		{f: thinkFlags{thinking: "sometimes"}, wantErr: "enabled, adaptive or disabled"},
		{f: thinkFlags{maxTokens: "-3"}, wantErr: "not a number of tokens"},
		{f: thinkFlags{display: "verbose"}, wantErr: "summarized or omitted"},
	} {
		var o harness.ModelOptions
		err := c.f.options(&o)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%+v: %v, want %q", c.f, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%+v: %v", c.f, err)
		case c.budget < 0 && o.Thinking != nil, c.budget >= 0 && (o.Thinking == nil || o.Thinking.Budget != c.budget), o.Effort != c.effort:
			t.Errorf("%+v: effort %q thinking %+v", c.f, o.Effort, o.Thinking)
		}
	}
}
