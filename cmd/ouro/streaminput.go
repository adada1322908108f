package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/ui"
)

// Input formats of headless mode (--input-format).
const (
	inputText       = "text"
	inputStreamJSON = "stream-json"
)

// maxInputLine bounds one stream-json input line (a message with inline images).
const maxInputLine = 16 << 20

// inputLine is one line of --input-format stream-json, as Claude Code reads it:
//
//	{"type":"user","message":{"role":"user","content":"fix the tests"}}
//
// content is a string or a list of content blocks (text, image). Other fields Claude
// Code's SDK sends (session_id, parent_tool_use_id) are accepted and ignored.
type inputLine struct {
	Type    string `json:"type"`
	Message *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// inputReader reads --input-format stream-json one line at a time, as the lines arrive,
// so a program can send the next prompt after reading the previous result.
type inputReader struct {
	r    *bufio.Reader
	line int
}

func newInputReader(r io.Reader) *inputReader {
	return &inputReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// readLine reads one line without its newline; a last line without one counts.
func (in *inputReader) readLine() ([]byte, error) {
	var buf []byte
	for {
		part, err := in.r.ReadSlice('\n')
		if len(buf)+len(part) > maxInputLine {
			return nil, fmt.Errorf("--input-format stream-json: standard input line %d is longer than %d MB", in.line+1, maxInputLine>>20)
		}
		buf = append(buf, part...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(buf, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil
		case errors.Is(err, io.EOF):
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("read standard input: %w", err)
		}
	}
}

// parseInputLine turns one stream-json line into the blocks of a user prompt.
func parseInputLine(raw []byte) ([]llm.Block, error) {
	var l inputLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("not a JSON object (%v); each line must be {\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"...\"}}", err)
	}
	if l.Type != "user" {
		if l.Type == "" {
			return nil, fmt.Errorf("no \"type\"; ouro reads only user messages: {\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"...\"}}")
		}
		return nil, fmt.Errorf("type %q is not supported; ouro reads only user messages (\"type\":\"user\")", l.Type)
	}
	if l.Message == nil {
		return nil, fmt.Errorf("a user line needs \"message\": {\"role\":\"user\",\"content\":\"...\"}")
	}
	if l.Message.Role != "user" {
		return nil, fmt.Errorf("message role %q: the role must be \"user\"", l.Message.Role)
	}
	c := bytes.TrimSpace(l.Message.Content)
	if len(c) == 0 || string(c) == "null" {
		return nil, fmt.Errorf("the message has no \"content\"")
	}
	if c[0] == '"' {
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return nil, fmt.Errorf("content: %v", err)
		}
		if strings.TrimSpace(s) == "" {
			return nil, fmt.Errorf("the message's content is empty")
		}
		return []llm.Block{llm.TextBlock(s)}, nil
	}
	var blocks []llm.Block
	if err := json.Unmarshal(c, &blocks); err != nil {
		return nil, fmt.Errorf("content must be a string or a list of content blocks: %v", err)
	}
	hasContent := false
	for i, b := range blocks {
		switch b.Type {
		case llm.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				hasContent = true
			}
			blocks[i] = llm.TextBlock(b.Text)
		case llm.BlockImage:
			if b.Source == nil || b.Source.Type != "base64" || b.Source.MediaType == "" || b.Source.Data == "" {
				return nil, fmt.Errorf("content block %d: an image needs \"source\": {\"type\":\"base64\",\"media_type\":...,\"data\":...}", i+1)
			}
			blocks[i] = llm.Block{Type: llm.BlockImage, Source: b.Source}
			hasContent = true
		case "":
			return nil, fmt.Errorf("content block %d has no \"type\"", i+1)
		default:
			return nil, fmt.Errorf("content block %d: type %q is not supported in a prompt; use text or image blocks", i+1, b.Type)
		}
	}
	if !hasContent {
		return nil, fmt.Errorf("the message's content is empty")
	}
	return blocks, nil
}

// checkFormats validates --input-format and --include-partial-messages the way Claude
// Code does: both need -p and stream-json output.
func (f *runFlags) checkFormats(cmd *cobra.Command, args []string) error {
	switch f.inputFormat {
	case inputText, inputStreamJSON:
	default:
		return fmt.Errorf("unknown input format %q: use text or stream-json", f.inputFormat)
	}
	if f.partial && (!f.print || f.outputFormat != ui.FormatStreamJSON) {
		return fmt.Errorf("--include-partial-messages requires -p (--print) and --output-format stream-json")
	}
	if f.inputFormat != inputStreamJSON {
		return nil
	}
	if !f.print {
		return fmt.Errorf("--input-format stream-json only applies with -p (--print)")
	}
	if f.outputFormat != ui.FormatStreamJSON {
		return fmt.Errorf("--input-format stream-json requires --output-format stream-json")
	}
	if len(args) > 0 {
		return fmt.Errorf("--input-format stream-json reads the prompts from standard input; pass none on the command line (got %q)", strings.Join(args, " "))
	}
	return nil
}

// runStreamTurns runs one turn of the session per user line on standard input, writing
// each turn's result line as soon as it ends, until the input ends (the Agent SDK's
// streaming mode keeps one session open across its messages). The exit status is the
// last turn's; a line that cannot be read stops the run with an error naming it (the
// turns before it are done and recorded). The SDK's interrupt ends the running turn and
// the session goes on; a signal ends the session.
func runStreamTurns(ctx context.Context, cmd *cobra.Command, sess *harness.Session, h *ui.Headless, in *streamInput) error {
	errOut := cmd.ErrOrStderr()
	var (
		last             agent.Outcome
		turns, modelTurn int
		runErr           error
	)
	for {
		n, err := in.next(ctx)
		if err != nil {
			last = agent.Outcome{Status: agent.StatusInterrupted, Reason: "interrupted while waiting for the next input line"}
			break
		}
		if errInputEnd(n.err) {
			if turns == 0 {
				runErr = fmt.Errorf("--input-format stream-json: no user message on standard input; send lines like {\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"fix the tests\"}}")
			}
			break
		}
		if n.err != nil {
			runErr = n.err
			break
		}
		for _, b := range n.blocks {
			if b.Type == llm.BlockText {
				sess.OfferWorkflows(b.Text)
			}
		}
		if m := in.takeModel(); m != "" {
			if err := sess.SwitchModel(m); err != nil {
				fmt.Fprintf(errOut, "ouro: set_model %s: %v; the session stays on %s\n", m, err, sess.Model)
			}
		}
		if th := in.takeThinking(); th != nil {
			if err := sess.SetThinking(*th); err != nil {
				fmt.Fprintf(errOut, "ouro: set_max_thinking_tokens: %v; thinking stays as it was\n", err)
			}
		}
		// The turn (and its interrupt) starts before a command's !`commands` run.
		tctx, end := in.beginTurn(ctx)
		blocks, err := slashBlocks(tctx, sess, n.blocks)
		if err != nil {
			end()
			runErr = err
			break
		}
		last = sess.RunBlocks(tctx, blocks)
		end()
		turns++
		modelTurn += last.Turns
		h.StructuredOutput(sess.TakeStructuredOutput())
		if err := h.Finish(last, errOut); err != nil {
			runErr = fmt.Errorf("writing output: %w", err)
			break
		}
	}
	rememberOnExit(ctx, sess, modelTurn, errOut)
	if err := sess.Close(); err != nil {
		fmt.Fprintf(errOut, "ouro: closing the transcript: %v\n", err)
	}
	if runErr != nil {
		return runErr
	}
	if code := ui.ExitCode(last); code != 0 {
		return exitError{code}
	}
	return nil
}
