package cron

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
)

// A fired prompt reaches the model wrapped in a <scheduled-task> tag, so that the model
// (and whoever reads the transcript) sees it came from a schedule, not from the user
// typing it just now; the tag carries the job's id, which is how the runner reports back
// which job the model answered.

const (
	markOpen  = `<scheduled-task id="`
	markClose = "</scheduled-task>"
)

// Mark wraps j's prompt for the model, fired at now.
func Mark(j Job, now time.Time) string {
	body := strings.ReplaceAll(j.Prompt, markClose, "</scheduled-task_>")
	var attrs string
	if j.Wakeup() {
		attrs = fmt.Sprintf(` kind="wakeup" reason="%s" fired="%s"`, html.EscapeString(textcut.Bytes(j.Reason, 200, "…")), now.Format(time.RFC3339))
		body += "\n\n(You are pacing this loop: call ScheduleWakeup again to continue it, or do not call it to end the loop.)"
	} else {
		durable := "session"
		if j.Durable {
			durable = "durable"
		}
		attrs = fmt.Sprintf(` cron="%s" recurring="%t" scope="%s" fired="%s"`, html.EscapeString(j.Cron), j.Recurring, durable, now.Format(time.RFC3339))
	}
	return markOpen + j.ID + `"` + attrs + ">\nThis prompt was scheduled earlier and has fired now; it was not typed by the user at this moment.\n\n" + body + "\n" + markClose
}

// MarkedID returns the id of the job whose prompt text is, when it is one.
func MarkedID(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, markOpen)
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, `"`)
	if !ok || !validID(id) {
		return "", false
	}
	return id, true
}
