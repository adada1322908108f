package envtune

import (
	"strings"
	"testing"
	"time"
)

func lookup(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestReadValid(t *testing.T) {
	tu := Read(lookup(map[string]string{
		BashDefaultTimeout: "5000", BashMaxTimeout: " 900000 ", BashMaxOutputLength: "1234",
		MaxOutputTokens: "4096", MaxMCPOutputTokens: "50000", MCPTimeout: "60000",
		MaxThinkingTokens: "0", DisablePromptCaching: "1",
	}))
	if len(tu.Warnings) != 0 {
		t.Fatalf("warnings %q", tu.Warnings)
	}
	if tu.BashDefaultTimeout != 5*time.Second || tu.BashMaxTimeout != 15*time.Minute || tu.BashMaxOutput != 1234 ||
		tu.MaxOutputTokens != 4096 || tu.MaxMCPOutputTokens != 50000 || tu.MCPTimeout != time.Minute ||
		tu.MaxThinkingTokens == nil || *tu.MaxThinkingTokens != 0 || !tu.NoPromptCache {
		t.Errorf("%+v", tu)
	}
}

func TestReadUnsetIsZero(t *testing.T) {
	tu := Read(lookup(nil))
	if tu.BashDefaultTimeout != 0 || tu.BashMaxOutput != 0 || tu.MaxThinkingTokens != nil || tu.NoPromptCache || len(tu.Warnings) != 0 {
		t.Errorf("%+v", tu)
	}
}

// Each invalid value is named in a warning and leaves the default.
func TestReadInvalidWarns(t *testing.T) {
	bad := map[string]string{
		BashDefaultTimeout: "2m", BashMaxTimeout: "-1", BashMaxOutputLength: "0",
		MaxOutputTokens: "lots", MaxMCPOutputTokens: "1e5", MCPTimeout: "999999999999",
		MaxThinkingTokens: "-3", DisablePromptCaching: "maybe",
	}
	tu := Read(lookup(bad))
	if tu.BashDefaultTimeout != 0 || tu.BashMaxTimeout != 0 || tu.BashMaxOutput != 0 || tu.MaxOutputTokens != 0 ||
		tu.MaxMCPOutputTokens != 0 || tu.MCPTimeout != 0 || tu.MaxThinkingTokens != nil || tu.NoPromptCache {
		t.Errorf("an invalid value was used: %+v", tu)
	}
	all := strings.Join(tu.Warnings, "\n")
	for name, v := range bad {
		if !strings.Contains(all, name+"=\""+v+"\"") {
			t.Errorf("no warning names %s=%q:\n%s", name, v, all)
		}
	}
	if len(tu.Warnings) != len(bad) {
		t.Errorf("%d warnings for %d bad values", len(tu.Warnings), len(bad))
	}
}
