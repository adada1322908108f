package resolve

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/llm"
)

// ModelChoice is a model a session could switch to (the /model picker).
type ModelChoice struct {
	Name    string
	Current bool // the session's model
}

// Choices lists the models a session on model current could switch to: current first,
// then the listed models of each provider configured (Claude models when an Anthropic
// key or token is set, OpenAI's as openai:NAME when OPENAI_API_KEY or OPENAI_BASE_URL
// is), the variables read through env. It is nil when env is (a session whose provider
// was given by its caller).
func Choices(current string, env func(string) string) []ModelChoice {
	if env == nil {
		return nil
	}
	out := []ModelChoice{{Name: current, Current: true}}
	anthropicOK := env("ANTHROPIC_API_KEY") != "" || env("ANTHROPIC_AUTH_TOKEN") != ""
	openaiOK := env("OPENAI_API_KEY") != "" || env("OPENAI_BASE_URL") != ""
	for _, m := range llm.ListedModels() {
		openai := strings.HasPrefix(m, "openai:")
		if m == current || openai && !openaiOK || !openai && !anthropicOK {
			continue
		}
		out = append(out, ModelChoice{Name: m})
	}
	return out
}

// Check says whether a provider of a session on model current knows the model name (an
// alias, a listed Claude model, an openai:NAME in ouro's table, a scripted:FILE, current
// itself): nil if so, else an error naming the close ones and how to use the name anyway
// (a new model, or one a server of the user's serves). Another provider's model named
// without its prefix is refused with the prefixed name, as at startup. env reads the
// connection variables; nil for a session whose provider was given.
func Check(name, current string, env func(string) string) error {
	name = strings.TrimSpace(name)
	resolved := llm.ResolveAlias(name)
	if err := checkModelName(resolved); err != nil {
		return err
	}
	base := ""
	if env != nil {
		base = env("ANTHROPIC_BASE_URL")
	}
	switch {
	case resolved != name, resolved == current, strings.HasPrefix(resolved, "scripted:"):
		return nil
	case strings.HasPrefix(resolved, "openai:"):
		if llm.LookupModel(resolved).Known {
			return nil
		}
	default:
		// gpt-4o, llama3: another provider's; gtp-4o: a typo of one, said below.
		if llm.LookupModel(resolved).Known || len(closeModels(name)) == 0 {
			if err := checkClaudeName(resolved, base); err != nil {
				return err
			}
		}
		if llm.IsClaude(resolved) && llm.LookupModel(resolved).Known {
			return nil
		}
	}
	msg := fmt.Sprintf("no provider ouro knows serves a model %q", name)
	if close := closeModels(name); len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, " or ") + "?"
	}
	return fmt.Errorf("%s (/model alone lists the models; /model --force %s uses the name as it is: a model newer than ouro's table, or one your own server serves)", msg, name)
}

// closeModels are the listed models and aliases within a few edits of name, closest first.
func closeModels(name string) []string {
	type scored struct {
		name string
		d    int
	}
	var found []scored
	low := strings.ToLower(name)
	limit := max(2, len(low)/4)
	for _, c := range append(llm.ListedModels(), llm.Aliases()...) {
		d := editDistance(low, c)
		if !strings.HasPrefix(low, "openai:") && strings.HasPrefix(c, "openai:") {
			d = min(d, editDistance(low, strings.TrimPrefix(c, "openai:")))
		}
		if d <= limit {
			found = append(found, scored{c, d})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].d < found[j].d })
	var out []string
	for _, f := range found[:min(3, len(found))] {
		out = append(out, f.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
