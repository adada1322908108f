package workflow

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
)

// progress is what /workflows shows of one run as it goes: its phases in order (those
// meta.phases announces, then any other the script enters), and in each its agents.
type progress struct {
	id, name, status, err string
	started               time.Time
	current               string // the phase the script entered last
	phases                []*phaseProgress
	agents                map[int]*agentProgress
}

type phaseProgress struct {
	title  string
	agents []int // call indexes, in start order
}

type agentProgress struct {
	label, status string
	tokens        int
}

func newProgress(id string, meta Meta) *progress {
	pg := &progress{id: id, name: meta.Name, status: StatusRunning, started: time.Now(), agents: map[int]*agentProgress{}}
	for _, ph := range meta.Phases {
		pg.phase(ph.Title)
	}
	return pg
}

// phase returns the phase titled title, added at the end when new.
func (pg *progress) phase(title string) *phaseProgress {
	for _, p := range pg.phases {
		if p.title == title {
			return p
		}
	}
	p := &phaseProgress{title: title}
	pg.phases = append(pg.phases, p)
	return p
}

// observe records a run's events for Render and writes them to out, the run's output
// file (what TaskOutput shows while it runs).
func (t *Tool) observe(pg *progress, out io.Writer) func(Event) {
	return func(e Event) {
		t.mu.Lock()
		defer t.mu.Unlock()
		switch e.Kind {
		case "phase":
			pg.current = e.Label
			pg.phase(e.Label)
			fmt.Fprintf(out, "== %s\n", e.Label)
		case "log":
			fmt.Fprintf(out, "   %s\n", e.Label)
		case "agent_start", "agent_end":
			a := pg.agents[e.Index]
			if a == nil {
				a = &agentProgress{label: e.Label}
				if a.label == "" {
					a.label = fmt.Sprintf("agent #%d", e.Index)
				}
				pg.agents[e.Index] = a
				ph := pg.phase(e.Phase)
				ph.agents = append(ph.agents, e.Index)
			}
			if e.Kind == "agent_start" {
				a.status = CallRunning
				fmt.Fprintf(out, "   #%d %s started\n", e.Index, a.label)
				return
			}
			a.status, a.tokens = e.Status, e.Tokens
			fmt.Fprintf(out, "   #%d %s %s (%d tokens)\n", e.Index, a.label, e.Status, e.Tokens)
		}
	}
}

// maxListed bounds the agents named under one phase; the rest are counted.
const maxListed = 12

// Render shows how each run of this session is going (the REPL's /workflows): per run
// its status, time and tokens, then its phase tree, each phase with its agents running,
// done and failed and the tokens they spent; running and failed agents are named.
func (t *Tool) Render() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.runs) == 0 {
		return "No workflow runs yet in this session."
	}
	var b strings.Builder
	for _, pg := range t.runs {
		total := tally(pg, nil)
		fmt.Fprintf(&b, "%s  %s  %s  %s  %s\n", pg.id, pg.name, pg.status, time.Since(pg.started).Round(time.Second), total)
		if pg.err != "" {
			fmt.Fprintf(&b, "  error: %s\n", textcut.OneLine(pg.err, 200, "…"))
		}
		for i, ph := range pg.phases {
			if ph.title == "" && len(ph.agents) == 0 {
				continue
			}
			branch, under := "├─", "│ "
			if i == len(pg.phases)-1 {
				branch, under = "└─", "  "
			}
			title := ph.title
			if title == "" {
				title = "(no phase)"
			}
			mark := ""
			if ph.title == pg.current && pg.status == StatusRunning {
				mark = "  ◀ current"
			}
			if len(ph.agents) == 0 {
				state := "not started"
				if mark != "" {
					state = "no agent yet"
				}
				fmt.Fprintf(&b, "  %s %s  %s%s\n", branch, title, state, mark)
				continue
			}
			fmt.Fprintf(&b, "  %s %s  %s%s\n", branch, title, tally(pg, ph.agents), mark)
			listed := 0
			for _, idx := range ph.agents {
				a := pg.agents[idx]
				if a.status == CallDone || a.status == "replayed" {
					continue
				}
				if listed == maxListed {
					fmt.Fprintf(&b, "  %s    …\n", under)
					break
				}
				listed++
				fmt.Fprintf(&b, "  %s    #%d %s  %s  %d tokens\n", under, idx, textcut.OneLine(a.label, 50, "…"), a.status, a.tokens)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// tally counts the agents of idx (every agent of the run when nil) by state.
func tally(pg *progress, idx []int) string {
	if idx == nil {
		for i := range pg.agents {
			idx = append(idx, i)
		}
		sort.Ints(idx)
	}
	var running, done, failed, replayed, tokens int
	for _, i := range idx {
		a := pg.agents[i]
		switch a.status {
		case CallRunning:
			running++
		case CallDone:
			done++
		case "replayed":
			replayed++
		default:
			failed++
		}
		tokens += a.tokens
	}
	return fmt.Sprintf("agents: %d running, %d done, %d failed, %d replayed; %d tokens", running, done, failed, replayed, tokens)
}
