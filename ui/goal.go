package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/ouroagent/ouro/goal"
	"github.com/ouroagent/ouro/harness"
)

// goalCommand is /goal: "/goal" shows the session's goal, "/goal off" clears it and
// "/goal CONDITION" sets it (a check command given with --goal-check is kept).
func goalCommand(s *harness.Session, arg string, out io.Writer) error {
	arg = strings.TrimSpace(arg)
	cur := s.Goal()
	switch arg {
	case "":
		if !cur.Active() {
			fmt.Fprintln(out, "No goal. /goal CONDITION sets one: each time the model stops, an evaluator judges it and sends the model back until it holds.")
			return nil
		}
		fmt.Fprintf(out, "Goal: %s\n", cur.What())
		if cur.Check != "" && cur.Condition != "" {
			fmt.Fprintf(out, "Check: %s (must exit 0)\n", cur.Check)
		}
		fmt.Fprintf(out, "Judged at each stop, at most %d times per prompt. /goal off clears it.\n", s.GoalRounds())
		return nil
	case "off", "clear":
		if !cur.Active() {
			fmt.Fprintln(out, "There is no goal to clear.")
			return nil
		}
		if err := s.SetGoal(goal.State{}); err != nil {
			return err
		}
		fmt.Fprintln(out, "Goal cleared.")
		return nil
	}
	if err := s.SetGoal(goal.State{Condition: arg, Check: cur.Check}); err != nil {
		return err
	}
	fmt.Fprintf(out, "Goal set: %s\n", s.Goal().What())
	return nil
}
