package acp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ouroagent/ouro/llm"
)

// promptBlocks turns an ACP prompt into the user message's blocks: text as text, images
// as images, a resource link as a mention of the file or address (the model reads it
// with its tools, through the same permission policy), an embedded resource as its
// text in a <context> element naming where it came from.
func promptBlocks(in []sdk.ContentBlock) ([]llm.Block, error) {
	var out []llm.Block
	for i, c := range in {
		switch {
		case c.Text != nil:
			out = append(out, llm.TextBlock(c.Text.Text))
		case c.Image != nil:
			if c.Image.Data == "" {
				return nil, fmt.Errorf("prompt block %d: an image needs its data (base64); ouro does not fetch images by uri", i)
			}
			out = append(out, llm.Block{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: c.Image.MimeType, Data: c.Image.Data}})
		case c.ResourceLink != nil:
			out = append(out, llm.TextBlock(mention(c.ResourceLink.Name, c.ResourceLink.Uri)))
		case c.Resource != nil:
			switch r := c.Resource.Resource; {
			case r.TextResourceContents != nil:
				out = append(out, llm.TextBlock(fmt.Sprintf("<context ref=%q>\n%s\n</context>", location(r.TextResourceContents.Uri), r.TextResourceContents.Text)))
			case r.BlobResourceContents != nil:
				b := r.BlobResourceContents
				if b.MimeType != nil && strings.HasPrefix(*b.MimeType, "image/") {
					out = append(out, llm.Block{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: *b.MimeType, Data: b.Blob}})
				} else {
					out = append(out, llm.TextBlock(mention("", b.Uri)))
				}
			}
		case c.Audio != nil:
			return nil, fmt.Errorf("prompt block %d: ouro does not take audio (promptCapabilities.audio is false)", i)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the prompt has no content")
	}
	return out, nil
}

// location is a file URI's path, or the URI itself.
func location(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" && u.Path != "" {
		return u.Path
	}
	return uri
}

func mention(name, uri string) string {
	loc := location(uri)
	if name == "" || name == loc || strings.HasSuffix(loc, "/"+name) {
		return "@" + loc
	}
	return fmt.Sprintf("@%s (%s)", loc, name)
}

// mcpConfig writes the client's MCP servers as an --mcp-config value, so they join the
// session as the user's own servers do.
func mcpConfig(servers []sdk.McpServer) (string, error) {
	if len(servers) == 0 {
		return "", nil
	}
	all := map[string]any{}
	for i, s := range servers {
		var name string
		var entry map[string]any
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, e := range s.Stdio.Env {
				env[e.Name] = e.Value
			}
			args := s.Stdio.Args
			if args == nil {
				args = []string{}
			}
			name, entry = s.Stdio.Name, map[string]any{"type": "stdio", "command": s.Stdio.Command, "args": args, "env": env}
		case s.Http != nil:
			headers := map[string]string{}
			for _, h := range s.Http.Headers {
				headers[h.Name] = h.Value
			}
			name, entry = s.Http.Name, map[string]any{"type": "http", "url": s.Http.Url, "headers": headers}
		default:
			return "", fmt.Errorf("mcpServers[%d]: ouro connects to MCP servers over stdio and http only", i)
		}
		if name == "" {
			return "", fmt.Errorf("mcpServers[%d] has no name", i)
		}
		if _, dup := all[name]; dup {
			return "", fmt.Errorf("mcpServers: two servers are named %q", name)
		}
		all[name] = entry
	}
	b, err := json.Marshal(map[string]any{"mcpServers": all})
	return string(b), err
}
