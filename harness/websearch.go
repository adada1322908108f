package harness

import (
	"sync"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tools"
)

// searchModel is the model WebSearch makes its searches with: the session's, switched
// with it (SwitchModel), so a search goes to the provider the conversation uses.
type searchModel struct {
	mu   sync.Mutex
	p    llm.Provider
	name string
}

func (m *searchModel) set(p llm.Provider, name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.p, m.name = p, name
}

func (m *searchModel) get() (llm.Provider, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.p, m.name
}

// webSearchConfig is WebSearch's: the session's model, its requests counted in the run.
func webSearchConfig(m *searchModel, spent *spending) tools.WebSearchConfig {
	return tools.WebSearchConfig{Model: m.get, Spend: spent.add}
}
