//go:build unix

package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Session-only jobs come back when the session is resumed, as in Claude Code: a headless
// run schedules a recurring and a one-shot job; the REPL continuing that session fires
// both at their times; a job deleted before the exit does not come back, and a one-shot
// that fired does not come back on the next resume.
func TestCronSessionJobsComeBackOnResume(t *testing.T) {
	e := newEnv(t)
	setClock := e.clock(utc(10, 0, 30))
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{
			idCall("c1", "CronCreate", map[string]any{"cron": "*/5 * * * *", "prompt": "check the build"}),
			idCall("c2", "CronCreate", map[string]any{"cron": "7 10 * * *", "prompt": "remind me of the review", "recurring": false}),
			idCall("c3", "CronCreate", map[string]any{"cron": "0 11 * * *", "prompt": "never wanted", "recurring": false}),
		}},
		scripted.Turn{Text: "scheduled"},
	)
	out, errOut, code := e.run("", "-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions", "schedule them")
	m := regexp.MustCompile(`Scheduled ([0-9a-z]+) \(0 11`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	id := m[1]
	e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("d1", "CronDelete", map[string]string{"id": id})}}, scripted.Turn{Text: "deleted"})
	if out, errOut, code := e.run("", "-p", "-c", "--permission-mode", "bypassPermissions", "delete the 11 o'clock one"); code != 0 || !strings.Contains(out, "deleted") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}

	srv := e.fake(
		scripted.Turn{ExpectContains: "check the build", Text: "build is green"},
		scripted.Turn{ExpectContains: "remind me of the review", Text: "review reminder"},
		scripted.Turn{Text: "[]"}, // memory extraction at exit
	)
	c, stdin, buf := e.startREPL("-c")
	setClock(utc(10, 5, 40)) // 10:05 plus the recurring job's jitter (under 30 s)
	eventually(t, "the recurring job", func() bool { return strings.Contains(buf.String(), "build is green") }, buf.String)
	setClock(utc(10, 7, 5))
	eventually(t, "the one-shot", func() bool { return strings.Contains(buf.String(), "review reminder") }, buf.String)
	setClock(utc(10, 8, 0))
	fmt.Fprintln(stdin, "/exit")
	stdin.Close()
	if err := c.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, buf)
	}
	// The earlier conversation is shown again above "resumed here"; what runs after it
	// must not hold the deleted job.
	_, after, _ := strings.Cut(buf.String(), "── resumed here ──")
	if strings.Contains(after, "never wanted") {
		t.Fatalf("a deleted job came back:\n%s", buf)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3:\n%s", n, buf)
	}

	// Resumed again: the recurring job is still there, the one-shot that fired is not.
	e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("l1", "CronList", map[string]any{})}}, scripted.Turn{Text: "listed"})
	if out, errOut, code := e.run("", "-p", "-c", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions", "list"); code != 0 ||
		!strings.Contains(out, "check the build") || strings.Contains(out, "remind me of the review") || !strings.Contains(out, "next: 2026-12-01 10:10") {
		t.Fatalf("exit %d: the list should hold the recurring job only\n%s%s", code, out, errOut)
	}
}
