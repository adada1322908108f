// Package structured is structured output (s01, when has a run ended): with a JSON schema
// (--json-schema, or the Agent SDK's jsonSchema) the session offers the StructuredOutput
// tool, whose input schema is that schema, and a run ends only once the model has called
// it with input that validates. A call that does not validate is a tool error the model
// can correct; a final answer without a valid call sends the model back to make one. After
// MaxRetries such attempts the run ends budget_exhausted (structured_output_retries, the
// result subtype error_max_structured_output_retries), as Claude Code's does. The valid
// input is what the run hands to its result as structured_output.
package structured

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

// ToolName is the tool the model answers through.
const ToolName = "StructuredOutput"

// MaxRetries is how many attempts without valid structured output (calls that did not
// validate, final answers without a call) a run is allowed: Claude Code's
// MAX_STRUCTURED_OUTPUT_RETRIES.
const MaxRetries = 5

// Budget names the limit a run that ran out of retries reached (agent.Outcome.Budget).
const Budget = "structured_output_retries"

// Parse reads a schema given as inline JSON (it starts with "{") or as the path of a file
// holding it, and checks it is a JSON object. Compiling it is Join's.
func Parse(arg string) (json.RawMessage, error) {
	text := strings.TrimSpace(arg)
	if text == "" {
		return nil, fmt.Errorf("--json-schema: the schema is empty")
	}
	data := []byte(text)
	if !strings.HasPrefix(text, "{") {
		b, err := regfile.Read(text, regfile.MaxConfig)
		if err != nil {
			return nil, fmt.Errorf("--json-schema: %q is neither inline JSON (starting with {) nor a readable file: %w", text, err)
		}
		data = b
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("--json-schema: the schema is not a JSON object: %v", errOr(err, "null"))
	}
	return json.RawMessage(bytes.TrimSpace(data)), nil
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// JoinConfig is the session's schema; nil means no structured output (nothing joins).
type JoinConfig struct {
	Schema json.RawMessage
}

// Join offers StructuredOutput with the schema and judges each stop. A schema that does
// not compile, or does not describe an object (a tool's input is one), is an error now,
// not at the first call. The Part's Handle is the *Output.
func Join(_ mechanism.Env, c JoinConfig) (mechanism.Part, error) {
	p := mechanism.Part{Name: "structured-output", Phase: mechanism.PhaseGoal}
	if len(c.Schema) == 0 {
		return p, nil
	}
	var top struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(c.Schema, &top); err != nil {
		return p, fmt.Errorf("--json-schema: the schema is not a JSON object: %w", err)
	}
	if top.Type != nil && top.Type != "object" {
		return p, fmt.Errorf("--json-schema: the schema's type is %s; it must describe a JSON object (\"type\": \"object\"), the input of the %s tool", compact(top.Type), ToolName)
	}
	out := &Output{schema: c.Schema}
	// The session's registry checks every call against the schema; a registry of its own
	// refuses a schema that would not compile, the same way, before the session starts.
	if err := tool.NewRegistry().Add(outputTool{out}); err != nil {
		return p, fmt.Errorf("--json-schema: %w", err)
	}
	p.Tools = []tool.Tool{outputTool{out}}
	p.Prompt = "# Structured output\nThis session's final answer is structured: when the task is done, call the " + ToolName +
		" tool once with the answer as its input, matching its schema exactly. A call that does not match is refused with the reason; correct it and call again."
	p.BeforeModel = []agent.BeforeModel{out}
	p.BeforeStop = []agent.BeforeStop{out}
	p.Observers = []agent.Observer{out.observe}
	p.Handle = out
	return p, nil
}

// Output is one session's structured output: the value the current run's model gave and
// how many attempts have failed in it.
type Output struct {
	schema json.RawMessage

	mu     sync.Mutex
	value  json.RawMessage
	failed int
}

// Take is the valid structured output the last run gave (nil for none) and forgets it, so
// that the next run's result does not repeat it.
func (o *Output) Take() json.RawMessage {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	v := o.value
	o.value, o.failed = nil, 0
	return v
}

// observe starts each run afresh and counts the StructuredOutput calls that failed: the
// registry refuses input that does not validate before the tool runs, so the end of the
// call is where every refusal shows.
func (o *Output) observe(e agent.Event) {
	switch {
	case e.Type == agent.EventTurnStart && e.Turn == 1:
		o.mu.Lock()
		o.value, o.failed = nil, 0
		o.mu.Unlock()
	case e.Type == agent.EventToolEnd && e.Call != nil && e.Call.Name == ToolName && e.Result != nil && e.Result.IsError:
		o.mu.Lock()
		o.failed++
		o.mu.Unlock()
	}
}

// state is the run's value and failed attempts.
func (o *Output) state() (json.RawMessage, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.value, o.failed
}

func (o *Output) exhausted(failed int) *agent.EndRun {
	return &agent.EndRun{Status: agent.StatusBudgetExhausted, Budget: Budget,
		Reason: fmt.Sprintf("the model gave no structured output matching the --json-schema in %d attempts", failed)}
}

// BeforeModel ends the run once MaxRetries attempts have failed without a valid value.
func (o *Output) BeforeModel(context.Context, *agent.Turn) error {
	if v, failed := o.state(); v == nil && failed >= MaxRetries {
		return o.exhausted(failed)
	}
	return nil
}

// BeforeStop lets a run end once it has its structured output; without it the model is
// sent back to call the tool, and a final answer counts as a failed attempt.
func (o *Output) BeforeStop(_ context.Context, s *agent.Stop) agent.StopDecision {
	o.mu.Lock()
	if o.value != nil {
		o.mu.Unlock()
		return agent.StopDecision{}
	}
	o.failed++
	failed := o.failed
	o.mu.Unlock()
	if failed >= MaxRetries || s.Last {
		e := o.exhausted(failed)
		return agent.StopDecision{End: e.Status, Budget: e.Budget, Reason: e.Reason}
	}
	return agent.StopDecision{Continue: true, Message: "You must call the " + ToolName +
		" tool to complete this request: give your final answer as its input, matching its schema. Call it now."}
}

// outputTool is StructuredOutput: its input is the answer, already checked against the
// schema by the registry.
type outputTool struct{ o *Output }

func (t outputTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: ToolName,
		Description: "Return your final answer in the requested structured format. You MUST call this tool exactly once, at the end, with the answer as its input matching the schema.",
		InputSchema: t.o.schema}
}

func (outputTool) ReadOnly() bool { return true }

// Describe implements tool.Describer: the answer is kept in the session, nothing else is
// touched, so no rule needs to allow it.
func (outputTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

func (t outputTool) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	v := json.RawMessage(append([]byte(nil), x.Input...))
	t.o.mu.Lock()
	t.o.value = v
	t.o.mu.Unlock()
	return tool.Text("Structured output provided successfully."), nil
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
