package hook

import "github.com/ouroagent/ouro/settings"

// Sourced marks each hook without a source as coming from src (the agent, skill or
// plugin file that declared it), so that what runs says where it was configured.
func Sourced(hooks map[string][]settings.HookMatcher, src string) map[string][]settings.HookMatcher {
	out := make(map[string][]settings.HookMatcher, len(hooks))
	for ev, groups := range hooks {
		for _, m := range groups {
			if m.Source == "" {
				m.Source = src
			}
			out[ev] = append(out[ev], m)
		}
	}
	return out
}
