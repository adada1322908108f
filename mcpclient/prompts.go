package mcpclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
)

// PromptInfo is a server prompt offered as the slash command /mcp__<server>__<prompt>.
type PromptInfo struct {
	Command     string // mcp__server__prompt
	Description string
	Arguments   []string // in order; a command's words fill them one by one
}

// Prompts lists the connected servers' prompts.
func (m *Manager) Prompts() []PromptInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []PromptInfo
	for _, s := range m.servers {
		if s.state != StateConnected {
			continue
		}
		for _, p := range s.prompts {
			pi := PromptInfo{Command: ToolName(s.cfg.Name, p.Name), Description: p.Description}
			for _, a := range p.Arguments {
				pi.Arguments = append(pi.Arguments, a.Name)
			}
			out = append(out, pi)
		}
	}
	return out
}

// findPrompt returns the server and prompt a command names.
func (m *Manager) findPrompt(command string) (*server, *mcp.Prompt) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		if s.state != StateConnected {
			continue
		}
		for _, p := range s.prompts {
			if ToolName(s.cfg.Name, p.Name) == command {
				return s, p
			}
		}
	}
	return nil, nil
}

// ExpandPrompt turns "/mcp__<server>__<prompt> args…" into the prompt's text: ok is false
// when line names no prompt of a connected server. The words after the command fill the
// prompt's arguments in order; the last argument takes the rest of the line.
func (m *Manager) ExpandPrompt(ctx context.Context, line string) (text string, ok bool, err error) {
	cmd, rest, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	s, p := m.findPrompt(cmd)
	if s == nil {
		return "", false, nil
	}
	args := map[string]string{}
	words := strings.Fields(rest)
	for i, a := range p.Arguments {
		switch {
		case i >= len(words):
		case i == len(p.Arguments)-1:
			args[a.Name] = strings.Join(words[i:], " ")
		default:
			args[a.Name] = words[i]
		}
		if a.Required && args[a.Name] == "" {
			return "", true, fmt.Errorf("/%s needs its argument %q (arguments, in order: %s)", cmd, a.Name, argNames(p))
		}
	}
	cs, _, err := m.session(s.cfg.Name)
	if err != nil {
		return "", true, err
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
	if err != nil {
		return "", true, fmt.Errorf("/%s: the server could not give the prompt: %v", cmd, err)
	}
	var parts []string
	for _, msg := range res.Messages {
		if msg == nil {
			continue
		}
		if b := block(msg.Content); b.Type == llm.BlockText {
			parts = append(parts, b.Text)
		} else {
			parts = append(parts, "[an image the prompt holds is left out]")
		}
	}
	return strings.Join(parts, "\n\n"), true, nil
}

func argNames(p *mcp.Prompt) string {
	var names []string
	for _, a := range p.Arguments {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}

// maxResource bounds the text of one resource referenced with @server:uri.
const maxResource = 100_000

// ReadResource reads uri from server as blocks for the model: text as text (cut at a
// bound, saying so), images as images.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) ([]llm.Block, error) {
	cs, _, err := m.session(server)
	if err != nil {
		return nil, err
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("reading %s from MCP server %q failed: %v", uri, server, err)
	}
	var out []llm.Block
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		if len(c.Text) > maxResource {
			cut := *c
			cut.Text = textcut.Bytes(c.Text, maxResource, "") + fmt.Sprintf("\n[… cut: the resource holds %d bytes]", len(c.Text))
			c = &cut
		}
		out = append(out, resourceBlock(c))
	}
	return out, nil
}

// Has reports whether a server called name is configured.
func (m *Manager) Has(name string) bool {
	for _, s := range m.servers {
		if s.cfg.Name == name {
			return true
		}
	}
	return false
}
