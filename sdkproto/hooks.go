package sdkproto

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/ouroagent/ouro/hook"
)

// HookMatcher is one matcher of the initialize request's hooks: the SDK keeps the
// callbacks and sends their ids ("hook_0", ...).
type HookMatcher struct {
	Matcher         *string  `json:"matcher"`
	HookCallbackIDs []string `json:"hookCallbackIds"`
	// Timeout is in seconds, as in settings files.
	Timeout *float64 `json:"timeout"`
}

// HookFuncs turns the SDK's hooks into ouro's in-process hooks: each callback id becomes
// a hook.Func that sends hook_callback with Claude Code's hook JSON and reads the answer
// as a hook's JSON output. They run in ouro's hook order with the settings' hooks. Events
// ouro does not know are returned in unknown.
func (c *Channel) HookFuncs(cfg map[string][]HookMatcher) (funcs map[string][]hook.Func, unknown []string) {
	funcs = map[string][]hook.Func{}
	events := make([]string, 0, len(cfg))
	for ev := range cfg {
		events = append(events, ev)
	}
	sort.Strings(events)
	for _, ev := range events {
		if !hook.KnownEvent(ev) {
			unknown = append(unknown, ev)
			continue
		}
		for _, m := range cfg[ev] {
			matcher := ""
			if m.Matcher != nil {
				matcher = *m.Matcher
			}
			var timeout time.Duration
			if m.Timeout != nil && *m.Timeout > 0 {
				timeout = time.Duration(*m.Timeout * float64(time.Second))
			}
			for _, id := range m.HookCallbackIDs {
				funcs[ev] = append(funcs[ev], hook.Func{Matcher: matcher, Name: "sdk:" + id, Run: c.hookRun(id, timeout)})
			}
		}
	}
	return funcs, unknown
}

func (c *Channel) hookRun(id string, timeout time.Duration) func(context.Context, hook.Input) (hook.Output, error) {
	return func(ctx context.Context, in hook.Input) (hook.Output, error) {
		payload, err := json.Marshal(in)
		if err != nil {
			return hook.Output{}, err
		}
		var toolUseID any
		if in.ToolUseID != "" {
			toolUseID = in.ToolUseID
		}
		raw, err := c.Call(ctx, "hook_callback", map[string]any{
			"callback_id": id, "input": json.RawMessage(payload), "tool_use_id": toolUseID,
		}, timeout)
		if err != nil {
			return hook.Output{}, err
		}
		var out hook.Output
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &out); err != nil {
				return hook.Output{}, fmt.Errorf("the SDK's hook %s answered with something that is not hook output JSON: %v", id, err)
			}
		}
		return out, nil
	}
}
