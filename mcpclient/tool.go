package mcpclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/tool"
)

// MaxToolName is the longest tool name the model APIs accept.
const MaxToolName = 64

// ToolName is the name the model sees for a server's tool (or prompt):
// mcp__<server>__<tool>, both parts made safe and the whole cut to MaxToolName.
func ToolName(server, name string) string {
	n := "mcp__" + mcpconf.SafeName(server) + "__" + mcpconf.SafeName(name)
	if len(n) > MaxToolName {
		n = n[:MaxToolName]
	}
	return n
}

// maxDescription bounds a tool's description, as Claude Code does: a server cannot fill
// the context with one tool.
const maxDescription = 2048

// maxSchema bounds a tool's input schema.
const maxSchema = 32 << 10

// Tool is one server tool in ouro's pool.
type Tool struct {
	m      *Manager
	server string
	name   string // ouro's name
	remote *mcp.Tool
	spec   llm.ToolSpec
	// SchemaErr is set when the server's input schema is not a JSON object under the
	// size bound; the tool must not join the pool.
	SchemaErr error
	readOnly  bool
}

func newTool(m *Manager, s *server, t *mcp.Tool) *Tool {
	name := ToolName(s.cfg.Name, t.Name)
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if len(desc) > maxDescription {
		desc = textcut.Bytes(desc, maxDescription, "") + "… [truncated]"
	}
	x := &Tool{m: m, server: s.cfg.Name, name: name, remote: t}
	raw, err := json.Marshal(t.InputSchema)
	switch {
	case err != nil:
		x.SchemaErr = fmt.Errorf("its input schema cannot be encoded: %v", err)
	case len(raw) > maxSchema:
		x.SchemaErr = fmt.Errorf("its input schema is %d bytes, more than the %d ouro accepts", len(raw), maxSchema)
	case !isObjectSchema(raw):
		x.SchemaErr = fmt.Errorf("its input schema must be a JSON object with \"type\": \"object\", got %s", textcut.Bytes(string(raw), 120, "…"))
	}
	if x.SchemaErr != nil {
		raw = []byte(`{"type":"object"}`)
	}
	x.spec = llm.ToolSpec{Name: name, Description: desc, InputSchema: raw}
	if t.Annotations != nil && t.Annotations.ReadOnlyHint && m.opts.Trusted != nil && m.opts.Trusted(s.cfg.Name) {
		x.readOnly = true
	}
	return x
}

func isObjectSchema(raw []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil || top == nil {
		return false
	}
	var typ string
	return json.Unmarshal(top["type"], &typ) == nil && typ == "object"
}

// Server is the server the tool belongs to.
func (t *Tool) Server() string { return t.server }

// Spec implements tool.Tool.
func (t *Tool) Spec() llm.ToolSpec { return t.spec }

// OutputBudget implements tool.Budgeted: MAX_MCP_OUTPUT_TOKENS's bound, 0 for the
// registry's.
func (t *Tool) OutputBudget() int { return t.m.opts.MaxResultChars }

// ReadOnly implements tool.Tool: only a trusted server's read-only annotation counts.
func (t *Tool) ReadOnly() bool { return t.readOnly }

// Describe implements tool.Describer: ouro cannot know what a server's tool does, so a
// call is Unknown (its rules decide, or the user), except for a trusted server's tool
// annotated read-only, which only observes.
func (t *Tool) Describe(json.RawMessage) ([]tool.Action, error) {
	if t.readOnly {
		return []tool.Action{{Kind: tool.ActObserve}}, nil
	}
	return []tool.Action{{Kind: tool.ActUnknown}}, nil
}

// Run calls the tool on its server. Progress notifications reach x.Progress; the call is
// bounded by MCP_TOOL_TIMEOUT when set.
func (t *Tool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	cs, srv, err := t.m.session(t.server)
	if err != nil {
		return tool.Errorf("%s cannot run: %v.", t.name, err), nil
	}
	if t.m.opts.ToolTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.m.opts.ToolTimeout)
		defer cancel()
	}
	var args map[string]any
	if len(x.Input) > 0 {
		if err := json.Unmarshal(x.Input, &args); err != nil {
			return tool.Errorf("Invalid input for %s: %v", t.name, err), nil
		}
	}
	params := &mcp.CallToolParams{Name: t.remote.Name, Arguments: args}
	token := "ouro-" + strconv.FormatUint(t.m.token.Add(1), 10)
	params.SetProgressToken(token)
	t.m.calls.Store(token, x)
	defer t.m.calls.Delete(token)
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		switch {
		case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && t.m.opts.ToolTimeout > 0:
			return tool.Errorf("%s did not answer within %s (MCP_TOOL_TIMEOUT).", t.name, t.m.opts.ToolTimeout), nil
		case ctx.Err() != nil:
			return tool.Result{}, ctx.Err()
		case errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			t.m.lost(srv, cs, fmt.Sprintf("the server stopped during a call to %s: %v", t.name, err))
			return tool.Errorf("MCP server %q stopped during the call to %s (%v); its tools are gone for this session.", t.server, t.name, err), nil
		}
		return tool.Errorf("%s failed: %v", t.name, err), nil
	}
	return convert(res), nil
}

// onProgress hands a progress notification to the call that carries its token.
func (m *Manager) onProgress(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	key, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	if v, ok := m.calls.Load(key); ok {
		v.(*tool.Exec).Progress(tool.Progress{Message: p.Message, Done: p.Progress, Total: p.Total})
	}
}

// maxImage bounds an image a server returns (decoded bytes); larger ones are described,
// not sent.
const maxImage = 5 << 20

// convert turns a tool result into blocks: text as text, images as images (the model
// sees them), everything else described in text.
func convert(res *mcp.CallToolResult) tool.Result {
	out := tool.Result{IsError: res.IsError}
	for _, c := range res.Content {
		out.Content = append(out.Content, block(c))
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			out.Content = append(out.Content, llm.TextBlock(string(data)))
		}
	}
	return out
}

func block(c mcp.Content) llm.Block {
	switch c := c.(type) {
	case *mcp.TextContent:
		return llm.TextBlock(c.Text)
	case *mcp.ImageContent:
		return imageBlock(c.MIMEType, c.Data)
	case *mcp.AudioContent:
		return llm.TextBlock(fmt.Sprintf("[audio %s, %d bytes: ouro does not pass audio to the model]", c.MIMEType, len(c.Data)))
	case *mcp.ResourceLink:
		return llm.TextBlock(fmt.Sprintf("[resource link: %s %s%s]", c.URI, c.Name, orEmpty(" — ", c.Description)))
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return llm.TextBlock("[empty embedded resource]")
		}
		return resourceBlock(c.Resource)
	}
	return llm.TextBlock(fmt.Sprintf("[content of type %T that ouro cannot show]", c))
}

func resourceBlock(r *mcp.ResourceContents) llm.Block {
	switch {
	case r.Text != "":
		return llm.TextBlock(fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text))
	case strings.HasPrefix(r.MIMEType, "image/"):
		return imageBlock(r.MIMEType, r.Blob)
	}
	return llm.TextBlock(fmt.Sprintf("[resource %s: %d bytes of %s, not shown]", r.URI, len(r.Blob), orEmpty("", r.MIMEType)))
}

// imageBlock is an image for the model, when it is a kind the APIs take and not too big.
func imageBlock(mime string, data []byte) llm.Block {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
	default:
		return llm.TextBlock(fmt.Sprintf("[image of type %q: not a kind the model accepts (png, jpeg, gif, webp)]", mime))
	}
	if len(data) > maxImage {
		return llm.TextBlock(fmt.Sprintf("[image %s of %d bytes: larger than the %d ouro passes on]", mime, len(data), maxImage))
	}
	return llm.Block{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: mime, Data: base64.StdEncoding.EncodeToString(data)}}
}

func orEmpty(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
