package cron

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// The tools, with Claude Code's names and inputs.
const (
	CreateName = "CronCreate"
	DeleteName = "CronDelete"
	ListName   = "CronList"
	WakeupName = "ScheduleWakeup"
)

// Tools returns CronCreate, CronDelete, CronList and ScheduleWakeup on s. interactive
// says someone is at a REPL to run what fires; without, session-only jobs and wake-ups
// could never fire, and the tools say so.
func Tools(s *Scheduler, interactive bool) []tool.Tool {
	return []tool.Tool{&createTool{s, interactive}, &deleteTool{s}, &listTool{s}, &wakeupTool{s, interactive}}
}

type createTool struct {
	s           *Scheduler
	interactive bool
}

func (t *createTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: CreateName,
		Description: "Schedules a prompt to run in this session when a cron expression matches (only while idle). Recurring jobs expire after 7 days; one-shot jobs delete themselves after firing. Returns the job id.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"cron":{"type":"string","description":"5-field cron in local time: \"M H DoM Mon DoW\", e.g. \"*/5 * * * *\""},` +
			`"prompt":{"type":"string","description":"the prompt to run when it fires"},` +
			`"recurring":{"type":"boolean","description":"true (default): every match; false: once, then deleted"},` +
			`"durable":{"type":"boolean","description":"true: kept in .ouro/scheduled_tasks.json across restarts; false (default): dies with the session"}},` +
			`"required":["cron","prompt"],"additionalProperties":false}`)}
}

func (t *createTool) ReadOnly() bool { return false }

// Describe implements tool.Describer: a session-only job changes only the session; a
// durable one is written into the project and runs in later sessions, so it is decided
// as any other action.
func (t *createTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return describeCreate(input)
}

var describeCreate = tool.DescribeSessionUnless("durable")

func (t *createTool) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	in := struct {
		Cron      string `json:"cron"`
		Prompt    string `json:"prompt"`
		Recurring *bool  `json:"recurring"`
		Durable   bool   `json:"durable"`
	}{}
	if err := json.Unmarshal(x.Input, &in); err != nil {
		return tool.Result{}, fmt.Errorf("bad input: %w", err)
	}
	recurring := in.Recurring == nil || *in.Recurring
	j, err := t.s.Create(in.Cron, in.Prompt, recurring, in.Durable)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Scheduled %s (%s, %s, %s). Next fire: %s.", j.ID, j.Cron, kind(j), scope(j), when(t.s.NextFire(j)))
	if j.Recurring {
		b.WriteString(" Recurring jobs expire after 7 days.")
	}
	fmt.Fprintf(&b, " Cancel with CronDelete %s.", j.ID)
	if !t.interactive {
		if j.Durable {
			b.WriteString(" This run is headless: the job fires in an interactive ouro session in this project or under `ouro cron run`.")
		} else {
			b.WriteString(" Note: this run is headless and ends when you stop, so a session-only job fires only if this session is resumed interactively (ouro --resume); use durable: true for a job `ouro cron run` or any later session runs.")
		}
	}
	return tool.Text(b.String()), nil
}

type deleteTool struct{ s *Scheduler }

func (t *deleteTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: DeleteName, Description: "Cancels a scheduled job (CronCreate or ScheduleWakeup) by id.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`)}
}

func (t *deleteTool) ReadOnly() bool { return false }

// Describe implements tool.Describer: deleting a job changes only the schedule.
func (t *deleteTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

func (t *deleteTool) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	var in struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(x.Input, &in); err != nil {
		return tool.Result{}, fmt.Errorf("bad input: %w", err)
	}
	msg, err := t.s.Delete(strings.TrimSpace(in.ID))
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	return tool.Text(msg), nil
}

type listTool struct{ s *Scheduler }

func (t *listTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: ListName, Description: "Lists the scheduled jobs: id, schedule, next fire, prompt.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)}
}

func (t *listTool) ReadOnly() bool { return true }

// Describe implements tool.Describer: listing reads only the schedule.
func (t *listTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

func (t *listTool) Run(context.Context, *tool.Exec) (tool.Result, error) {
	return tool.Text(Describe(t.s, t.s.List())), nil
}

// Describe lists jobs one per line, for the model and for people.
func Describe(s *Scheduler, jobs []Job) string {
	if len(jobs) == 0 {
		return "No jobs are scheduled."
	}
	unapproved := map[string]bool{}
	for _, j := range s.Unapproved() {
		unapproved[j.ID] = true
	}
	var b strings.Builder
	for _, j := range jobs {
		sched := j.Cron
		if j.Wakeup() {
			sched = "wake-up"
		}
		fmt.Fprintf(&b, "%s  %s  %s, %s  next: %s", j.ID, sched, kind(j), scope(j), when(s.NextFire(j)))
		if j.Disabled {
			b.WriteString("  [disabled in the file]")
		} else if unapproved[j.ID] {
			b.WriteString("  [not approved: does not run]")
		}
		fmt.Fprintf(&b, "\n    %s\n", textcut.Bytes(strings.ReplaceAll(j.Prompt, "\n", " "), 120, "…"))
	}
	return strings.TrimRight(b.String(), "\n")
}

func kind(j Job) string {
	switch {
	case j.Wakeup():
		return "once"
	case j.Recurring:
		return "recurring"
	}
	return "one-shot"
}

func scope(j Job) string {
	if j.Durable {
		return "durable in " + j.Source
	}
	return "session-only"
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.In(time.Local).Format("2006-01-02 15:04:05 MST")
}

type wakeupTool struct {
	s           *Scheduler
	interactive bool
}

func (t *wakeupTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: WakeupName,
		Description: "Paces a /loop: runs prompt again after delaySeconds (clamped to 60-3600). Call it once per turn to continue the loop; not calling it ends the loop.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"delaySeconds":{"type":"number"},"reason":{"type":"string","description":"why this delay"},"prompt":{"type":"string","description":"the prompt of the next turn"}},"required":["delaySeconds","reason","prompt"],"additionalProperties":false}`)}
}

func (t *wakeupTool) ReadOnly() bool { return false }

// Describe implements tool.Describer: a wake-up changes only the session.
func (t *wakeupTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

func (t *wakeupTool) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	var in struct {
		Delay  float64 `json:"delaySeconds"`
		Reason string  `json:"reason"`
		Prompt string  `json:"prompt"`
	}
	if err := json.Unmarshal(x.Input, &in); err != nil {
		return tool.Result{}, fmt.Errorf("bad input: %w", err)
	}
	if !t.interactive {
		return tool.Errorf("ScheduleWakeup paces a /loop in an interactive session; this run is headless and ends when you stop, so nothing would wake. Finish the work now, or use CronCreate with durable: true."), nil
	}
	j, err := t.s.Wakeup(time.Duration(in.Delay*float64(time.Second)), in.Reason, in.Prompt)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	d := j.At.Sub(j.CreatedAt)
	msg := fmt.Sprintf("The loop continues at %s (in %s).", when(j.At), d)
	if float64(d) != in.Delay*float64(time.Second) {
		msg += fmt.Sprintf(" The delay was clamped to %d-%d seconds.", int(MinWakeup/time.Second), int(MaxWakeup/time.Second))
	}
	return tool.Text(msg + " It replaces any wake-up scheduled before (CronDelete " + j.ID + " cancels it)."), nil
}
