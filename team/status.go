package team

import (
	"fmt"
	"strings"
	"time"

	"github.com/ouroagent/ouro/llm"
)

// Member is one teammate as `ouro team` shows it.
type Member struct {
	Name        string  `json:"name"`
	AgentType   string  `json:"agent_type"`
	Model       string  `json:"model"`
	Status      Status  `json:"status"`
	Task        string  `json:"task,omitempty"`
	LastMessage string  `json:"last_message,omitempty"`
	Tokens      int     `json:"tokens"`
	CostUSD     float64 `json:"cost_usd"`
	Plan        string  `json:"plan,omitempty"` // "awaiting approval", "approved"
	Reason      string  `json:"reason,omitempty"`
	Transcript  string  `json:"transcript,omitempty"`
}

// Snapshot is the team's state.
type Snapshot struct {
	Team    string    `json:"team"`
	Updated time.Time `json:"updated"`
	Members []Member  `json:"members"`
	Tokens  int       `json:"tokens"`
	CostUSD float64   `json:"cost_usd"`
}

func (tm *teammate) state() Member {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	m := Member{Name: tm.name, AgentType: tm.def.Name, Status: tm.status, Task: tm.current, LastMessage: tm.last, Reason: tm.reason}
	if tm.m != nil {
		u, c := tm.m.Usage()
		m.Tokens, m.CostUSD, m.Model, m.Transcript = u.Total(), c, tm.m.Model(), tm.m.TranscriptPath()
	}
	switch {
	case tm.plan && tm.approved:
		m.Plan = "approved"
	case tm.plan && tm.planReq != "":
		m.Plan = "awaiting approval"
	case tm.plan:
		m.Plan = "planning"
	}
	return m
}

// Snapshot returns the team's state, members in the order they joined.
func (t *Team) Snapshot() Snapshot {
	t.mu.Lock()
	members := make([]*teammate, 0, len(t.order))
	for _, n := range t.order {
		members = append(members, t.members[n])
	}
	t.mu.Unlock()
	s := Snapshot{Team: t.cfg.Name, Updated: time.Now().UTC()}
	for _, tm := range members {
		m := tm.state()
		s.Members = append(s.Members, m)
		s.Tokens += m.Tokens
		s.CostUSD += m.CostUSD
	}
	return s
}

// Render shows a snapshot for a person (ouro team).
func Render(s Snapshot) string {
	if len(s.Members) == 0 {
		return fmt.Sprintf("Team %s has no teammates.", s.Team)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Team %s (updated %s): %d tokens, $%.4f\n", s.Team, s.Updated.Local().Format(time.DateTime), s.Tokens, s.CostUSD)
	fmt.Fprintf(&b, "%-16s %-16s %-9s %-24s %8s %9s  %s\n", "NAME", "TYPE", "STATUS", "TASK", "TOKENS", "COST", "LAST MESSAGE")
	for _, m := range s.Members {
		st := string(m.Status)
		if m.Plan != "" && m.Status != StatusStopped {
			st += " (plan " + m.Plan + ")"
		}
		fmt.Fprintf(&b, "%-16s %-16s %-9s %-24s %8d %9s  %s\n", m.Name, m.AgentType, st, clip(m.Task, 24), m.Tokens, fmt.Sprintf("$%.4f", m.CostUSD), m.LastMessage)
	}
	return strings.TrimRight(b.String(), "\n")
}

// overBudget says which team-wide limit is spent ("" when none).
func (t *Team) overBudget() string { return t.overBudgetWith(llm.Usage{}, 0, 0) }

// overBudgetWith is overBudget counting a run in progress too.
func (t *Team) overBudgetWith(u llm.Usage, cost float64, turns int) string {
	lim := t.cfg.Budget
	t.mu.Lock()
	spent, total, n := t.spent.Add(u), t.cost+cost, t.turns+turns
	t.mu.Unlock()
	switch {
	case lim.MaxTurns > 0 && n >= lim.MaxTurns:
		return fmt.Sprintf("%d of %d turns", n, lim.MaxTurns)
	case lim.MaxTokens > 0 && spent.Total() >= lim.MaxTokens:
		return fmt.Sprintf("%d of %d tokens", spent.Total(), lim.MaxTokens)
	case lim.MaxCostUSD > 0 && total >= lim.MaxCostUSD:
		return fmt.Sprintf("$%.4f of $%.4f", total, lim.MaxCostUSD)
	case lim.MaxDuration > 0 && !t.start.IsZero() && time.Since(t.start) >= lim.MaxDuration:
		return fmt.Sprintf("%s of %s", time.Since(t.start).Round(time.Second), lim.MaxDuration)
	}
	return ""
}
