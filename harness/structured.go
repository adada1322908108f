package harness

import (
	"encoding/json"

	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/structured"
)

// TakeStructuredOutput is the structured output the last run gave (its valid
// StructuredOutput input; nil without a schema or a valid call), for the run's result. It
// is forgotten once taken.
func (s *Session) TakeStructuredOutput() json.RawMessage {
	o, _ := mechanism.Handle[*structured.Output](s.parts)
	return o.Take()
}
