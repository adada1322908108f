package ui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ouroagent/ouro/cron"
	"github.com/ouroagent/ouro/harness"
)

// loop runs /loop [interval] PROMPT. With an interval ("5m", "2h", "1d"; seconds round
// up to a minute) it schedules PROMPT as a session-only recurring job and runs it once
// now; without one, it runs PROMPT now and the model paces the next turns itself with
// ScheduleWakeup (not calling it ends the loop). /loop stop cancels the session's jobs.
func (r *REPL) loop(line string) error {
	_, args, _ := strings.Cut(line, " ")
	args = strings.TrimSpace(args)
	sched := r.sess.Schedules()
	if args == "" {
		return errors.New("usage: /loop [interval] PROMPT, e.g. /loop 5m check the deploy (interval in s, m, h or d); without an interval the model picks when to run again; /loop stop cancels")
	}
	if args == "stop" {
		n := 0
		for _, j := range sched.List() {
			if !j.Durable {
				if _, err := sched.Delete(j.ID); err == nil {
					n++
				}
			}
		}
		fmt.Fprintf(r.Out, "cancelled %d session job(s)\n", n)
		return nil
	}
	first, rest, _ := strings.Cut(args, " ")
	expr, every, note, isInterval, err := loopInterval(first)
	if err != nil {
		return err
	}
	prompt := strings.TrimSpace(rest)
	if !isInterval {
		prompt = args
	}
	if prompt == "" {
		return fmt.Errorf("say what to run every %s: /loop %s check the deploy", every, first)
	}
	if isInterval {
		j, err := sched.Create(expr, prompt, true, false)
		if err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "Scheduled %s: every %s (%s)%s, in this session only; it expires after 7 days. /loop stop cancels it.\n",
			j.ID, every, expr, note)
		r.wakes.push(harness.Wake{Source: "loop", Prompt: prompt})
		return nil
	}
	r.sess.LoadTools(cron.WakeupName, cron.DeleteName)
	r.wakes.push(harness.Wake{Source: "loop", Prompt: prompt + "\n\n(This is a /loop that you pace: when done with this turn, call ScheduleWakeup with delaySeconds between 60 and 3600, a reason and this same prompt to run it again; do not call it to end the loop.)"})
	return nil
}

var intervalRe = regexp.MustCompile(`^(\d{1,4})([smhd])$`)

// loopInterval turns "5m" into a cron expression. Intervals that do not divide their unit
// evenly (7m, 5h) are rounded to one that does, and note says so.
func loopInterval(word string) (expr, every, note string, ok bool, err error) {
	m := intervalRe.FindStringSubmatch(word)
	if m == nil {
		return "", "", "", false, nil
	}
	n, _ := strconv.Atoi(m[1])
	if n == 0 {
		return "", "", "", false, fmt.Errorf("interval %s: it must be at least 1m", word)
	}
	unit := m[2]
	if unit == "s" {
		n, unit = (n+59)/60, "m"
	}
	if unit == "m" && n >= 60 && n%60 == 0 {
		n, unit = n/60, "h"
	}
	if unit == "h" && n >= 24 && n%24 == 0 {
		n, unit = n/24, "d"
	}
	round := func(n int, steps []int) int {
		best := steps[0]
		for _, s := range steps {
			if abs(s-n) < abs(best-n) {
				best = s
			}
		}
		return best
	}
	picked := n
	switch unit {
	case "m":
		picked = round(n, []int{1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60})
		if picked == 60 {
			expr, every = "0 * * * *", "1h"
		} else {
			expr, every = fmt.Sprintf("*/%d * * * *", picked), fmt.Sprintf("%dm", picked)
		}
	case "h":
		picked = round(n, []int{1, 2, 3, 4, 6, 8, 12, 24})
		if picked == 24 {
			expr, every = "0 0 * * *", "1d"
		} else {
			expr, every = fmt.Sprintf("0 */%d * * *", picked), fmt.Sprintf("%dh", picked)
		}
	case "d":
		picked = min(n, 31)
		expr, every = fmt.Sprintf("0 0 */%d * *", picked), fmt.Sprintf("%dd", picked)
	}
	if secs, _ := strconv.Atoi(m[1]); picked != n || m[2] == "s" && secs%60 != 0 {
		note = fmt.Sprintf(" (%s rounded to %s: cron runs in whole minutes that divide the hour or day)", word, every)
	}
	return expr, every, note, true, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// confirm asks a yes/no question (harness.UI.Confirm): only y or yes says yes.
func (r *REPL) confirm(question string) bool {
	r.inMu.Lock()
	defer r.inMu.Unlock()
	r.endLine()
	fmt.Fprintf(r.Out, "\n%s [y] yes  [n] no\n? ", question)
	line, err := r.readLine(context.Background())
	if err != nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
