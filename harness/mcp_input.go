package harness

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/llm"
)

// mentionRE finds @server:uri references in a prompt; compiled on first use.
var mentionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9_.-]+):(\S+)`)
})

// maxMentions bounds how many resources one prompt may pull in.
const maxMentions = 10

// mcpInput makes a prompt ready for the model: "/mcp__<server>__<prompt> args" becomes
// the server prompt's text, and each @server:uri a connected server can read is attached
// after the prompt. A reference that cannot be read is said so, not dropped silently.
func (s *Session) mcpInput(ctx context.Context, prompt string) (string, []llm.Block, error) {
	if s.mcp == nil || prompt == "" {
		return prompt, nil, nil
	}
	if !strings.HasPrefix(strings.TrimSpace(prompt), "/mcp__") && !strings.Contains(prompt, "@") {
		return prompt, nil, nil
	}
	s.WaitMCP(ctx)
	m := s.mcp.m
	if strings.HasPrefix(strings.TrimSpace(prompt), "/mcp__") {
		text, ok, err := m.ExpandPrompt(ctx, prompt)
		if err != nil {
			return "", nil, err
		}
		if !ok {
			cmd, _, _ := strings.Cut(strings.TrimSpace(prompt), " ")
			return "", nil, fmt.Errorf("%s is not a prompt of a connected MCP server (/mcp lists them)", cmd)
		}
		prompt = text
	}
	var extra []llm.Block
	for i, sub := range mentionRE().FindAllStringSubmatch(prompt, -1) {
		server, uri := sub[1], sub[2]
		if !m.Has(server) {
			continue // an e-mail address or a handle, not a server
		}
		if i >= maxMentions {
			extra = append(extra, llm.TextBlock(fmt.Sprintf("[more than %d MCP resources are referenced; the rest are not attached]", maxMentions)))
			break
		}
		blocks, err := m.ReadResource(ctx, server, uri)
		if err != nil {
			extra = append(extra, llm.TextBlock(fmt.Sprintf("[@%s:%s could not be attached: %v]", server, uri, err)))
			continue
		}
		extra = append(extra, blocks...)
	}
	return prompt, extra, nil
}
