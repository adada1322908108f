package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/outputstyle"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sdkproto"
	"github.com/ouroagent/ouro/ui"
)

// maxQueued bounds the user messages read ahead of the turn that runs: a program that
// sends more without waiting for results is refused rather than held in memory.
const maxQueued = 1000

// streamItem is one user message of standard input, or the error that ends the input.
type streamItem struct {
	blocks []llm.Block
	err    error
}

// streamInput reads --input-format stream-json: user messages for the turns, and the
// Agent SDK's control protocol (control_request, control_response) in between, which is
// answered at once even while a turn runs. See sdkproto for the protocol.
type streamInput struct {
	ch     *sdkproto.Channel
	errOut io.Writer

	mu      sync.Mutex
	queue   []streamItem
	wake    chan struct{} // a token when queue gained an item
	initReq chan sdkproto.Request
	poke    chan struct{} // another control request came before initialize
	ready   chan struct{} // closed once the session is open
	sess    *harness.Session
	cancel  context.CancelFunc // the running turn's
	inited  bool
	model   string // set_model's, for the next turn
	// thinking is set_max_thinking_tokens's, for the next turn; startThinking the
	// session's own, which a null budget goes back to.
	thinking      *llm.Thinking
	startThinking llm.Thinking
	// applied are initialize's parts the session took (mcp_servers_applied, ...).
	applied map[string]bool
}

// takeModel returns the model set_model asked for since the last turn, "" for none.
func (s *streamInput) takeModel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.model
	s.model = ""
	return m
}

func newStreamInput(h *ui.Headless, errOut io.Writer) *streamInput {
	s := &streamInput{ch: sdkproto.NewChannel(h.Line), errOut: errOut,
		applied: map[string]bool{}, wake: make(chan struct{}, 1), initReq: make(chan sdkproto.Request, 1), poke: make(chan struct{}, 1), ready: make(chan struct{})}
	s.ch.Timeout = sdkTimeout(errOut)
	return s
}

func (s *streamInput) push(it streamItem) {
	s.mu.Lock()
	s.queue = append(s.queue, it)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// next waits for the next user message (or the error ending the input).
func (s *streamInput) next(ctx context.Context) (streamItem, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			it := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return it, nil
		}
		s.mu.Unlock()
		select {
		case <-s.wake:
		case <-ctx.Done():
			return streamItem{}, ctx.Err()
		}
	}
}

// read reads standard input to its end. Only a line that cannot be read at all (not
// JSON, a type ouro does not know, a bad user message, too long) ends the input, with
// an error naming the line; protocol mistakes of the SDK are answered or reported.
func (s *streamInput) read(r io.Reader) {
	in := newInputReader(r)
	defer s.ch.Close()
	for {
		raw, err := in.readLine()
		if err != nil {
			s.push(streamItem{err: err})
			return
		}
		in.line++
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l sdkproto.Line
		if err := json.Unmarshal(raw, &l); err != nil {
			s.push(streamItem{err: fmt.Errorf("--input-format stream-json: standard input line %d is not a JSON object (%v)", in.line, err)})
			return
		}
		switch l.Type {
		case "control_request":
			req, err := sdkproto.ParseRequest(l)
			if err != nil {
				if req.ID != "" {
					_ = s.ch.RespondError(req.ID, err.Error())
				} else {
					fmt.Fprintf(s.errOut, "ouro: standard input line %d: %v; ignored\n", in.line, err)
				}
				continue
			}
			if req.Subtype == "initialize" {
				// At once, before the next line is read: a user message that follows
				// initialize must not overtake it (the session would open without it).
				s.handle(req)
				continue
			}
			go s.handle(req)
		case "control_response":
			if err := s.ch.Deliver(l); err != nil {
				fmt.Fprintf(s.errOut, "ouro: standard input line %d: %v\n", in.line, err)
			}
		case "control_cancel_request", "keep_alive":
			// ouro answers the SDK's requests at once; there is nothing to cancel.
		default:
			blocks, err := parseInputLine(raw)
			if err != nil {
				s.push(streamItem{err: fmt.Errorf("--input-format stream-json: standard input line %d: %w", in.line, err)})
				return
			}
			s.mu.Lock()
			full := len(s.queue) >= maxQueued
			s.mu.Unlock()
			if full {
				s.push(streamItem{err: fmt.Errorf("--input-format stream-json: more than %d user messages are waiting for their turn; send the next one after the previous result", maxQueued)})
				return
			}
			s.push(streamItem{blocks: blocks})
		}
	}
}

// awaitInit waits for the first line of input: the SDK's initialize request, which
// must be answered before the session opens since its hooks and agents join it, or
// anything else (a user message, the end), which is left for the turns.
func (s *streamInput) awaitInit(ctx context.Context) *sdkproto.Request {
	select {
	case req := <-s.initReq:
		return &req
	case <-s.wake:
		select { // a user line came first; give its token back for next
		case s.wake <- struct{}{}:
		default:
		}
		select {
		case req := <-s.initReq: // both at once: still the SDK's
			return &req
		default:
		}
	case <-s.poke:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inited = true // later, an initialize is too late
	select {
	case req := <-s.initReq: // it raced the first user line; it still counts
		return &req
	default:
	}
	return nil
}

// configure joins what the SDK brings to the session: its hooks and agents (from
// initialize), its in-process MCP servers, and its canUseTool when asked for.
func (s *streamInput) configure(opts *harness.Options, f *runFlags, init *sdkproto.Request) error {
	ch := s.ch
	opts.MCP.SDK = func(name string) mcp.Transport { return ch.MCPTransport(name, 0) }
	if f.sdk.promptTool == "stdio" {
		opts.UI.PromptApprover = &sdkproto.Approver{Ch: ch,
			Policy:    func() *permission.Policy { return s.session().Policy() },
			Interrupt: s.interrupt,
			Warn:      func(msg string) { fmt.Fprintf(s.errOut, "ouro: %s\n", msg) }}
	}
	if f.sdk.agents != "" {
		defs, err := sdkproto.ParseAgents([]byte(f.sdk.agents), "--agents")
		if err != nil {
			return err
		}
		opts.Agents = append(opts.Agents, defs...)
	}
	if init == nil {
		return nil
	}
	var body struct {
		Hooks  map[string][]sdkproto.HookMatcher `json:"hooks"`
		Agents json.RawMessage                   `json:"agents"`
		// The TypeScript SDK sends the system prompt here rather than as flags: a
		// string, or an array of strings (joined as blocks of one prompt).
		SystemPrompt       json.RawMessage `json:"systemPrompt"`
		AppendSystemPrompt *string         `json:"appendSystemPrompt"`
		// The TypeScript SDK's in-process MCP servers (createSdkMcpServer) are named here,
		// not in --mcp-config; their messages travel as mcp_message control requests.
		// The manifests (each server's initialize and tools/list answers) are not needed:
		// ouro asks the server itself.
		SDKMCPServers []string `json:"sdkMcpServers"`
		// The TypeScript SDK's other MCP servers (stdio, http, sse) and disallowed
		// tools, sent here instead of --mcp-config and --disallowedTools.
		MCPServers      json.RawMessage `json:"mcpServers"`
		DisallowedTools []string        `json:"disallowedTools"`
		// Settings as --settings takes them: a JSON text or an object.
		Settings json.RawMessage `json:"settings"`
		// The schema of the result's structured output, as --json-schema gives it.
		JSONSchema json.RawMessage `json:"jsonSchema"`
	}
	if err := json.Unmarshal(init.Body, &body); err != nil {
		return fmt.Errorf("the SDK's initialize request: %v", err)
	}
	warnUnusedInit(init.Body, s.errOut)
	if len(body.MCPServers) > 0 && string(body.MCPServers) != "null" {
		cfg, err := json.Marshal(map[string]json.RawMessage{"mcpServers": body.MCPServers})
		if err != nil {
			return fmt.Errorf("the SDK's initialize request: mcpServers: %v", err)
		}
		opts.MCP.Configs = append(opts.MCP.Configs, string(cfg))
		s.applied["mcp_servers_applied"] = true
	}
	if body.DisallowedTools != nil {
		opts.Access.Deny = append(opts.Access.Deny, body.DisallowedTools...)
		s.applied["disallowed_tools_applied"] = true
	}
	if len(body.Settings) > 0 && string(body.Settings) != "null" {
		var text string
		if json.Unmarshal(body.Settings, &text) != nil {
			text = string(body.Settings) // an object: its JSON is what --settings takes
		}
		if opts.Access.Settings != "" {
			return errors.New("the SDK's initialize request: settings come both as --settings and in initialize; give them once")
		}
		opts.Access.Settings = text
		s.applied["settings_applied"] = true
	}
	if schema, err := sdkJSONSchema(body.JSONSchema); err != nil {
		return fmt.Errorf("the SDK's initialize request: %v", err)
	} else if schema != nil {
		opts.JSONSchema = schema // initialize's, over a --json-schema the SDK also passed
	}
	system, err := sdkSystemPrompt(body.SystemPrompt)
	if err != nil {
		return fmt.Errorf("the SDK's initialize request: %v", err)
	}
	if system != "" {
		opts.Prompt.System = system
	}
	if len(body.SDKMCPServers) > 0 {
		servers := map[string]any{}
		for _, name := range body.SDKMCPServers {
			servers[name] = map[string]string{"type": "sdk", "name": name}
		}
		cfg, _ := json.Marshal(map[string]any{"mcpServers": servers})
		opts.MCP.Configs = append(opts.MCP.Configs, string(cfg))
	}
	if body.AppendSystemPrompt != nil && *body.AppendSystemPrompt != "" {
		opts.Prompt.Append = *body.AppendSystemPrompt
	}
	funcs, unknown := ch.HookFuncs(body.Hooks)
	for _, ev := range unknown {
		fmt.Fprintf(s.errOut, "ouro: warning: the SDK registers hooks for %q, an event ouro does not have; they never run\n", ev)
	}
	opts.UI.HookFuncs = funcs
	if len(body.Agents) > 0 && string(body.Agents) != "null" {
		defs, err := sdkproto.ParseAgents(body.Agents, "the SDK's initialize request")
		if err != nil {
			return err
		}
		opts.Agents = append(opts.Agents, defs...)
	}
	return nil
}

// opened answers initialize, once the session is open, and lets the other control
// requests through.
func (s *streamInput) opened(sess *harness.Session, init *sdkproto.Request) {
	s.mu.Lock()
	s.sess = sess
	s.startThinking = sess.Thinking()
	s.mu.Unlock()
	close(s.ready)
	if init != nil {
		resp := map[string]any{
			"commands": sdkCommands(sess), "output_style": sess.OutputStyle(), "available_output_styles": outputstyle.Names(sess.OutputStyles()),
			"models": []any{}, "account": map[string]any{},
		}
		// What initialize brought that the session applied, as Claude Code confirms it
		// (the SDK ends a session whose CLI does not).
		for k, v := range s.applied {
			resp[k] = v
		}
		_ = s.ch.Respond(init.ID, resp)
	}
}

// sdkSlashCommand is one entry of initialize's "commands" (the SDK's SlashCommand): what a
// prompt "/name args" runs in this session.
type sdkSlashCommand struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argumentHint"`
}

// sdkCommands lists the skills and commands the user may invoke as /name (slashPrompt).
func sdkCommands(sess *harness.Session) []sdkSlashCommand {
	out := []sdkSlashCommand{}
	if sess == nil || sess.Skills == nil {
		return out
	}
	for _, k := range sess.Skills.Skills() {
		if !k.UserInvocable {
			continue
		}
		out = append(out, sdkSlashCommand{Name: k.Name, Description: k.Description, ArgumentHint: k.ArgumentHint})
	}
	return out
}

func (s *streamInput) session() *harness.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

// beginTurn makes interrupt end the turn that runs with the returned context.
func (s *streamInput) beginTurn(ctx context.Context) (context.Context, func()) {
	tctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	return tctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel()
	}
}

func (s *streamInput) interrupt() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// handle answers one of the SDK's control requests. Every request gets an answer: an
// unsupported subtype an error naming it.
func (s *streamInput) handle(req sdkproto.Request) {
	if req.Subtype == "initialize" {
		s.mu.Lock()
		again := s.inited
		s.inited = true
		if !again {
			s.initReq <- req // buffered, and only the first gets here
		}
		s.mu.Unlock()
		if again {
			_ = s.ch.RespondError(req.ID, "initialize must be the first line, and come once: ouro has already started the session")
		}
		return
	}
	select {
	case s.poke <- struct{}{}:
	default:
	}
	<-s.ready
	sess := s.session()
	switch req.Subtype {
	case "interrupt":
		s.interrupt()
		_ = s.ch.Respond(req.ID, nil)
	case "set_permission_mode":
		var b struct {
			Mode string `json:"mode"`
		}
		_ = json.Unmarshal(req.Body, &b)
		m, err := permission.ParseMode(b.Mode)
		if err == nil {
			err = sess.Policy().SetMode(m)
		}
		if err != nil {
			_ = s.ch.RespondError(req.ID, err.Error())
			return
		}
		_ = s.ch.Respond(req.ID, nil)
	case "set_model":
		var b struct {
			Model *string `json:"model"`
		}
		_ = json.Unmarshal(req.Body, &b)
		if b.Model == nil || *b.Model == "" || *b.Model == sess.Model || llm.ResolveAlias(*b.Model) == sess.Model {
			_ = s.ch.Respond(req.ID, nil)
			return
		}
		// Checked now, switched before the next turn (a turn may be running).
		if err := sess.CheckModel(*b.Model); err != nil {
			_ = s.ch.RespondError(req.ID, err.Error())
			return
		}
		s.mu.Lock()
		s.model = *b.Model
		s.mu.Unlock()
		_ = s.ch.Respond(req.ID, nil)
	case "set_max_thinking_tokens":
		s.setThinking(req)
	case "mcp_status":
		servers := mcpServers(sess, io.Discard)
		if servers == nil {
			servers = []ui.MCPServer{}
		}
		_ = s.ch.Respond(req.ID, map[string]any{"mcpServers": servers})
	default:
		_ = s.ch.RespondError(req.ID, fmt.Sprintf("unsupported control request subtype %q: ouro answers initialize, interrupt, set_permission_mode, set_model, set_max_thinking_tokens and mcp_status", req.Subtype))
	}
}

// start reads standard input in the background, waits for the SDK's initialize (or the
// first user message) and joins what the SDK brings to opts. The initialize request, if
// any, is returned for opened (or failed) to answer.
func (s *streamInput) start(ctx context.Context, in io.Reader, opts *harness.Options, f *runFlags) (*sdkproto.Request, error) {
	go s.read(in)
	init := s.awaitInit(ctx)
	if err := s.configure(opts, f, init); err != nil {
		s.failed(init, err)
		return nil, err
	}
	return init, nil
}

// failed answers initialize with the error that kept the session from opening.
func (s *streamInput) failed(init *sdkproto.Request, err error) {
	if s != nil && init != nil {
		_ = s.ch.RespondError(init.ID, "ouro could not start the session: "+err.Error())
	}
}

// errInputEnd reports whether err is the end of standard input.
func errInputEnd(err error) bool { return errors.Is(err, io.EOF) }

// sdkSystemPrompt reads initialize's systemPrompt: absent, a string, or an array of
// strings, which become one prompt, blank-line separated. Anything else is an error
// naming what came.
func sdkSystemPrompt(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return one, nil
	}
	var parts []string
	if err := json.Unmarshal(raw, &parts); err == nil {
		return strings.Join(parts, "\n\n"), nil
	}
	return "", fmt.Errorf("systemPrompt must be a string or an array of strings, not %s", clipJSON(raw))
}

// sdkJSONSchema reads initialize's jsonSchema: absent, an object, or a string holding
// one. The structured-output mechanism compiles it as the session opens.
func sdkJSONSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		raw = json.RawMessage(text)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("jsonSchema must be a JSON schema object, not %s", clipJSON(raw))
	}
	return raw, nil
}

// clipJSON quotes at most 80 bytes of a JSON value, for an error.
func clipJSON(raw json.RawMessage) string {
	if len(raw) > 80 {
		return string(raw[:80]) + "…"
	}
	return string(raw)
}

// initKeys are the fields of initialize ouro reads or knows to need nothing for: the
// manifests (ouro asks the SDK's servers itself), its output schema and title, UI
// affordances of Claude Code's own hosts.
var initKeys = map[string]bool{"subtype": true, "hooks": true, "agents": true, "systemPrompt": true,
	"appendSystemPrompt": true, "sdkMcpServers": true, "sdkMcpServerManifests": true, "sdkMcpServerConfigs": true,
	"mcpServers": true, "disallowedTools": true, "settings": true, "jsonSchema": true, "title": true, "promptSuggestions": true,
	"agentProgressSummaries": true, "forwardSubagentText": true, "supportedDialogKinds": true,
	"perTaskStopAffordance": true, "rapidFollowupPreempt": true, "forwardNestedSubagentToolCalls": true,
	"offersBypassSwitchBack": true, "keepsBypassHeld": true}

// warnUnusedInit names, once each, the fields of initialize that ouro does not act on
// (skills, plugins, ...), so a program learns what was not applied.
func warnUnusedInit(raw json.RawMessage, errOut io.Writer) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return
	}
	var unused []string
	for k, v := range fields {
		if !initKeys[k] && len(v) > 0 && string(v) != "null" {
			unused = append(unused, k)
		}
	}
	slices.Sort(unused)
	for _, k := range unused {
		fmt.Fprintf(errOut, "ouro: warning: the SDK's initialize sets %q, which ouro does not apply\n", k)
	}
}
