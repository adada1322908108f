package sdkproto

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/internal/textcut"
)

// MCPTransport is an MCP transport to one of the SDK's in-process servers ("type":
// "sdk" in --mcp-config): every JSON-RPC message ouro's MCP client writes goes to the SDK
// as an mcp_message request, and the SDK's mcp_response comes back as the server's
// message. Timeout bounds each exchange (the channel's when 0).
func (c *Channel) MCPTransport(server string, timeout time.Duration) mcp.Transport {
	return &mcpTransport{ch: c, server: server, timeout: timeout}
}

type mcpTransport struct {
	ch      *Channel
	server  string
	timeout time.Duration
}

func (t *mcpTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &mcpConn{t: t, ctx: ctx, cancel: cancel, in: make(chan jsonrpc.Message, 16)}, nil
}

type mcpConn struct {
	t      *mcpTransport
	ctx    context.Context
	cancel context.CancelFunc
	in     chan jsonrpc.Message
	once   sync.Once
}

func (c *mcpConn) SessionID() string { return "" }

func (c *mcpConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.ctx.Done():
		return nil, io.EOF
	}
}

func (c *mcpConn) Close() error {
	c.once.Do(c.cancel)
	return nil
}

// Write sends a request to the SDK and returns at once; the answer (or, when the exchange
// fails, a JSON-RPC error for the request) is delivered to Read. So a server that never
// answers fails its one request after the timeout, and concurrent calls do not wait for
// each other.
func (c *mcpConn) Write(_ context.Context, msg jsonrpc.Message) error {
	if c.ctx.Err() != nil {
		return io.ErrClosedPipe
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	req, isReq := msg.(*jsonrpc.Request)
	if isReq && !req.IsCall() {
		isReq = false // a notification: nothing comes back
	}
	send := func() (json.RawMessage, error) {
		return c.t.ch.Call(c.ctx, "mcp_message", map[string]any{
			"server_name": c.t.server, "message": json.RawMessage(data),
		}, c.t.timeout)
	}
	if !isReq {
		// A notification (notifications/initialized) is delivered before Write returns,
		// so the requests after it cannot overtake it.
		_, err := send()
		return err
	}
	go func() {
		raw, err := send()
		var reply jsonrpc.Message
		if err == nil {
			reply, err = decodeReply(raw, req.ID)
		}
		if err != nil {
			reply = &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("SDK MCP server %q: %v", c.t.server, err)}}
		}
		select {
		case c.in <- reply:
		case <-c.ctx.Done():
		}
	}()
	return nil
}

// decodeReply reads {"mcp_response": {...}}: the server's JSON-RPC response to the request
// with id. A response without an id (as the SDK sends when its server had nothing to
// say) is taken as that request's.
func decodeReply(raw json.RawMessage, id jsonrpc.ID) (jsonrpc.Message, error) {
	var body struct {
		MCPResponse json.RawMessage `json:"mcp_response"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || len(bytes.TrimSpace(body.MCPResponse)) == 0 {
		return nil, fmt.Errorf("the SDK's answer to mcp_message has no \"mcp_response\"")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body.MCPResponse, &m); err != nil {
		return nil, fmt.Errorf("mcp_response is not a JSON-RPC object: %v", err)
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if !hasResult && !hasError {
		return nil, fmt.Errorf("mcp_response has neither \"result\" nor \"error\"")
	}
	m["jsonrpc"] = json.RawMessage(`"2.0"`)
	idJSON, err := json.Marshal(id.Raw())
	if err != nil {
		return nil, err
	}
	if got, ok := m["id"]; ok && string(bytes.TrimSpace(got)) != "null" && !sameJSON(got, idJSON) {
		return nil, fmt.Errorf("mcp_response answers request %s, not %s", textcut.Bytes(string(got), 40, "…"), idJSON)
	}
	m["id"] = idJSON
	data, _ := json.Marshal(m)
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, fmt.Errorf("mcp_response: %v", err)
	}
	return msg, nil
}
