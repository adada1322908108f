package tools

import (
	"testing"
	"time"
)

func TestBashLimitsApply(t *testing.T) {
	c := BashLimits{DefaultTimeout: 77 * time.Second, ModelChars: 300}.Apply(BashConfig{MaxOutput: 1000})
	if c.DefaultTimeout != 77*time.Second || c.MaxTimeout != defaultBashMaxTimeout || c.ModelChars != 300 || c.MaxOutput != 3000 {
		t.Errorf("%+v", c)
	}
	// A default above the cap raises the cap; an explicit cap stands.
	if c := (BashLimits{DefaultTimeout: 20 * time.Minute}).Apply(BashConfig{}); c.MaxTimeout != 20*time.Minute {
		t.Errorf("cap %v", c.MaxTimeout)
	}
	if c := (BashLimits{DefaultTimeout: time.Minute, MaxTimeout: 2 * time.Minute}).Apply(BashConfig{}); c.MaxTimeout != 2*time.Minute {
		t.Errorf("cap %v", c.MaxTimeout)
	}
	if c := (BashLimits{}).Apply(BashConfig{MaxOutput: 5}); c.MaxOutput != 5 || c.DefaultTimeout != 0 || c.MaxTimeout != 0 || c.ModelChars != 0 {
		t.Errorf("zero limits changed %+v", c)
	}
	b := NewBash(BashLimits{ModelChars: 123}.Apply(BashConfig{Dir: t.TempDir()}))
	if b.OutputBudget() != 123 {
		t.Errorf("OutputBudget %d", b.OutputBudget())
	}
}
