package llm

import (
	"context"
	"sync"
)

// Meter is a Provider that counts what the calls through it cost (for side calls whose
// spending a user should be told, such as memory extraction). Safe for concurrent use.
type Meter struct {
	Provider
	// Model prices calls whose response names no model.
	Model string

	mu    sync.Mutex
	usage Usage
	cost  float64
}

// Complete forwards to the wrapped provider and adds the response's usage and cost.
func (m *Meter) Complete(ctx context.Context, req *Request, onDelta StreamFunc) (*Response, error) {
	resp, err := m.Provider.Complete(ctx, req, onDelta)
	if resp != nil {
		model := resp.Model
		if model == "" {
			model = req.Model
		}
		if model == "" {
			model = m.Model
		}
		m.mu.Lock()
		m.usage = m.usage.Add(resp.Usage)
		m.cost += LookupModel(model).Cost(resp.Usage)
		m.mu.Unlock()
	}
	return resp, err
}

// Spent is the usage and cost counted so far.
func (m *Meter) Spent() (Usage, float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage, m.cost
}
