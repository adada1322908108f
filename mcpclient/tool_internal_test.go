package mcpclient

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/mcpconf"
)

// A server's text is bounded whichever field it comes from: a tool without a
// description falls back on its title, and a huge title is cut like a description.
func TestToolTextIsBounded(t *testing.T) {
	s := &server{cfg: mcpconf.Server{Name: "srv"}}
	for _, tl := range []*mcp.Tool{
		{Name: "a", Description: strings.Repeat("d", 1<<20), InputSchema: map[string]any{"type": "object"}},
		{Name: "b", Title: strings.Repeat("t", 1<<20), InputSchema: map[string]any{"type": "object"}},
	} {
		x := newTool(&Manager{}, s, tl)
		if n := len(x.spec.Description); n > maxDescription+32 {
			t.Errorf("%s: description of %d bytes", tl.Name, n)
		}
	}
}
