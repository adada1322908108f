package permission

import (
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
)

// WebSearch (issue 30, item 16) is judged as Claude Code judges it: asked about by
// default, allowed or denied by a bare `WebSearch` rule (its rules take no specifier),
// not covered by WebFetch's domain rules, asked about in plan mode (it only reads),
// refused with nobody to ask, allowed in bypassPermissions; a deny rule hides it. The
// same verdicts come from ouro's tool (its Describe) and from Claude Code's name alone.
func TestWebSearchPermissions(t *testing.T) {
	e := newEnv(t)
	in := `{"query":"go 1.26 release notes"}`
	reg := tool.NewRegistry(tools.NewWebSearch(tools.WebSearchConfig{}))
	for _, withTools := range []bool{false, true} {
		p := func(mode string, rs rules) *Policy {
			pol := e.policy(t, mode, rs)
			if withTools {
				pol.SetTools(reg)
			}
			return pol
		}
		runPolicyCases(t, e, p("", rules{}), []policyCase{{"asked by default", "WebSearch", in, Ask, "", []string{"WebSearch"}}})
		runPolicyCases(t, e, p("", rules{allow: []string{"WebSearch"}}), []policyCase{{"allowed by WebSearch", "WebSearch", in, Allow, "WebSearch", nil}})
		runPolicyCases(t, e, p("", rules{deny: []string{"WebSearch"}, allow: []string{"WebSearch"}}), []policyCase{{"denied by WebSearch", "WebSearch", in, Deny, "WebSearch", nil}})
		runPolicyCases(t, e, p("", rules{ask: []string{"WebSearch"}}), []policyCase{{"an ask rule asks", "WebSearch", in, Ask, "WebSearch", nil}})
		runPolicyCases(t, e, p("", rules{allow: []string{"WebFetch(domain:example.com)", "WebFetch"}}), []policyCase{{"WebFetch rules do not cover it", "WebSearch", in, Ask, "", nil}})
		runPolicyCases(t, e, p("plan", rules{}), []policyCase{{"plan mode asks (it only reads)", "WebSearch", in, Ask, "", nil}})
		runPolicyCases(t, e, p("acceptEdits", rules{}), []policyCase{{"acceptEdits still asks", "WebSearch", in, Ask, "", nil}})
		runPolicyCases(t, e, p("dontAsk", rules{}), []policyCase{{"dontAsk refuses", "WebSearch", in, Deny, "dontAsk", nil}})
		runPolicyCases(t, e, p("bypassPermissions", rules{}), []policyCase{{"bypass allows", "WebSearch", in, Allow, "", nil}})
		runPolicyCases(t, e, p("bypassPermissions", rules{deny: []string{"WebSearch"}}), []policyCase{{"a deny rule holds in bypass", "WebSearch", in, Deny, "WebSearch", nil}})
	}
	if !e.policy(t, "", rules{deny: []string{"WebSearch"}}).Hidden("WebSearch") {
		t.Error("a deny rule naming WebSearch does not hide the tool")
	}
	// Claude Code's WebSearch rules take no specifier; one with a domain is reported, not
	// silently read as the bare rule (which would allow every search).
	_, err := ParseRule(settings.Rule{Text: "WebSearch(domain:example.com)"})
	if err == nil || !strings.Contains(err.Error(), "WebSearch takes no specifier") {
		t.Errorf("WebSearch(domain:example.com): %v", err)
	}
}
