package team

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ouroagent/ouro/agent"

	"github.com/ouroagent/ouro/internal/textcut"
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
	// Pid is a teammate process's (--team-process); Exit how it ended when it died, with
	// the tail of its error output.
	Pid    int    `json:"pid,omitempty"`
	Exit   string `json:"exit,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	// LastRead is the id of the newest message the teammate took from its mailbox: its
	// lead, reading a teammate process's state from its output, knows by it whether that
	// state is older than a message the store shows taken.
	LastRead string `json:"last_read,omitempty"`
}

// Snapshot is the team's state.
type Snapshot struct {
	Team    string    `json:"team"`
	Updated time.Time `json:"updated,omitzero"`
	Members []Member  `json:"members"`
	Tokens  int       `json:"tokens"`
	CostUSD float64   `json:"cost_usd"`
}

// loopState is the state of a teammate whose loop runs in this process.
func (tm *teammate) loopState() Member {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	m := Member{Name: tm.name, AgentType: tm.def.Name, Status: tm.status, Task: tm.current, LastMessage: tm.last, Reason: tm.reason}
	if tm.inbox != nil {
		m.LastRead = tm.inbox.Newest()
	}
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
		if m.Pid > 0 && m.Status != StatusStopped && m.Status != StatusFailed {
			st += fmt.Sprintf(" (pid %d)", m.Pid)
		}
		if m.Status == StatusFailed {
			m.LastMessage = "process ended: " + m.Exit
		}
		fmt.Fprintf(&b, "%-16s %-16s %-9s %-24s %8d %9s  %s\n", m.Name, m.AgentType, st, textcut.OneLine(m.Task, 24, "…"), m.Tokens, fmt.Sprintf("$%.4f", m.CostUSD), m.LastMessage)
		if m.Status == StatusFailed && m.Stderr != "" {
			lines := strings.Split(m.Stderr, "\n")
			fmt.Fprintf(&b, "%16s stderr: %s\n", "", textcut.OneLine(lines[len(lines)-1], 100, "…"))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// overBudget says which team-wide limit is spent ("" when none).
func (t *Team) overBudget() string { return t.overBudgetWith(llm.Usage{}, 0, 0) }

// overBudgetWith is overBudget counting a run in progress too.
func (t *Team) overBudgetWith(u llm.Usage, cost float64, turns int) string {
	lim := t.cfg.Budget
	if lim == (agent.Limits{}) {
		return ""
	}
	pTokens, pCost := t.procSpend()
	t.mu.Lock()
	spent, total, n := t.spent.Add(u).Total()+pTokens, t.cost+cost+pCost, t.turns+turns
	t.mu.Unlock()
	switch {
	case lim.MaxTurns > 0 && n >= lim.MaxTurns:
		return fmt.Sprintf("%d of %d turns", n, lim.MaxTurns)
	case lim.MaxTokens > 0 && spent >= lim.MaxTokens:
		return fmt.Sprintf("%d of %d tokens", spent, lim.MaxTokens)
	case lim.MaxCostUSD > 0 && total >= lim.MaxCostUSD:
		return fmt.Sprintf("$%.4f of $%.4f", total, lim.MaxCostUSD)
	case lim.MaxDuration > 0 && !t.start.IsZero() && time.Since(t.start) >= lim.MaxDuration:
		return fmt.Sprintf("%s of %s", time.Since(t.start).Round(time.Second), lim.MaxDuration)
	}
	return ""
}

// ParseBudget reads a team budget: comma-separated limits, any of turns=N, tokens=N,
// cost=USD, time=DURATION ("turns=200,cost=5,time=30m").
func ParseBudget(s string) (agent.Limits, error) {
	var l agent.Limits
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		var err error
		switch strings.TrimSpace(k) {
		case "turns":
			l.MaxTurns, err = strconv.Atoi(v)
			err = positive(err, l.MaxTurns > 0)
		case "tokens":
			l.MaxTokens, err = strconv.Atoi(v)
			err = positive(err, l.MaxTokens > 0)
		case "cost":
			l.MaxCostUSD, err = strconv.ParseFloat(v, 64)
			err = positive(err, l.MaxCostUSD > 0)
		case "time":
			l.MaxDuration, err = time.ParseDuration(v)
			err = positive(err, l.MaxDuration > 0)
		default:
			ok = false
		}
		if !ok {
			return l, fmt.Errorf("team budget %q: write limits as turns=N, tokens=N, cost=USD or time=DURATION, separated by commas", part)
		}
		if err != nil {
			return l, fmt.Errorf("team budget %q: %v", part, err)
		}
	}
	return l, nil
}

func positive(err error, ok bool) error {
	if err == nil && !ok {
		return fmt.Errorf("the limit must be above zero")
	}
	return err
}

// FormatBudget writes limits as ParseBudget reads them ("" for none).
func FormatBudget(l agent.Limits) string {
	var parts []string
	if l.MaxTurns > 0 {
		parts = append(parts, "turns="+strconv.Itoa(l.MaxTurns))
	}
	if l.MaxTokens > 0 {
		parts = append(parts, "tokens="+strconv.Itoa(l.MaxTokens))
	}
	if l.MaxCostUSD > 0 {
		parts = append(parts, "cost="+strconv.FormatFloat(l.MaxCostUSD, 'f', -1, 64))
	}
	if l.MaxDuration > 0 {
		parts = append(parts, "time="+l.MaxDuration.String())
	}
	return strings.Join(parts, ",")
}
