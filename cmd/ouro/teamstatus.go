package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/team/fleet"
	"github.com/ouroagent/ouro/team/registry"
)

// fleetStatus is what `ouro team status` shows: the team's worker processes, the tasks
// they hold, the queue and what is spent.
type fleetStatus struct {
	Team    string        `json:"team"`
	Store   string        `json:"store"`
	Now     time.Time     `json:"now"`
	Workers []fleetWorker `json:"workers"`
	Claimed []fleetClaim  `json:"claimed"`
	Queue   fleetQueue    `json:"queue"`
	// Pending are the undelivered messages per recipient (the lead is "main").
	Pending map[string]int `json:"pending_messages"`
	Tokens  int            `json:"tokens"`
	CostUSD float64        `json:"cost_usd"`
	// Unavailable names what could not be read (a store between leaders or without
	// quorum), and why; what is shown is the rest.
	Unavailable []string `json:"unavailable,omitempty"`
}

type fleetWorker struct {
	registry.Worker
	State registry.State `json:"state"`
	// HeartbeatAge is how long ago it was last heard from.
	HeartbeatAge string `json:"heartbeat_age"`
}

type fleetClaim struct {
	ID         string    `json:"id"`
	Subject    string    `json:"subject"`
	Owner      string    `json:"owner"`
	Holder     string    `json:"holder"`
	LeaseUntil time.Time `json:"lease_until"`
	Lapsed     bool      `json:"lapsed"`
}

type fleetQueue struct {
	Ready      int `json:"ready"`
	Blocked    int `json:"blocked"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
	Total      int `json:"total"`
}

func newTeamStatusCmd() *cobra.Command {
	var name, store string
	var asJSON bool
	c := &cobra.Command{
		Use:   "status [--team NAME] [--store URL]",
		Short: "Show a team's fleet: worker processes, claimed tasks, queue depth, cost",
		Long: `Show the worker processes of team NAME (ouro team worker) wherever they run: each
one's host and pid, whether it is alive (its heartbeat is younger than its task lease),
the task it holds and what it did and spent; the claimed tasks with their holders and
lease expiry; how many tasks are ready, blocked, in progress and completed; and the
messages waiting for each recipient. The store is --store, else $OURO_STORE, else
store.url in your settings, else ~/.ouro/state.db (the workers of this machine).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if name != "" {
				if err := task.ValidListName(name); err != nil {
					return fmt.Errorf("--team: %w", err)
				}
			}
			name, err := cliTaskList(name)
			if err != nil {
				return fmt.Errorf("which team? name it with --team NAME (as given to ouro team worker --team): %w", err)
			}
			url, err := harness.CLIStore(store)
			if err != nil {
				return err
			}
			home, err := session.Home()
			if err != nil {
				return err
			}
			st, err := readFleet(cmd.Context(), url, home, name)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			renderFleet(cmd.OutOrStdout(), st)
			return nil
		},
	}
	c.Flags().StringVar(&name, "team", "", "the team (its task list name, as given to ouro team worker --team)")
	c.Flags().StringVar(&store, "store", "", "the team's store: nats://HOST:PORT (default $OURO_STORE, else ~/.ouro/state.db)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return c
}

// statusWait bounds each read of ouro team status: a store electing a leader or without
// quorum holds a read until its timeout, and the status says what it could not read
// rather than wait for every part in turn.
const statusWait = 5 * time.Second

// readFleet gathers the status of team name from the store at url ("" → state.db). A
// team the store knows nothing of is an error, and nothing is created for it. A part
// that cannot be read (a leader election, a lost quorum) is named in Unavailable and the
// rest is shown; only when nothing at all can be read is it an error.
func readFleet(ctx context.Context, url, home, name string) (fleetStatus, error) {
	st := fleetStatus{Team: name, Store: harness.StatePath(home), Now: time.Now().UTC(), Pending: map[string]int{}}
	if url != "" {
		cfg, err := natsjs.Parse(url)
		if err != nil {
			return st, err
		}
		st.Store = "nats://" + cfg.Where()
		conn, err := natsjs.Connect(ctx, cfg, "ouro team status")
		if err != nil {
			return st, fmt.Errorf("nothing of team %s could be read from %s (the store may be electing a leader or have lost its quorum; try again): %w", name, st.Store, err)
		}
		known, checked := false, true
		for _, kind := range []string{"workers", "tasks"} {
			pctx, cancel := context.WithTimeout(ctx, statusWait)
			ok, err := conn.HasBucket(pctx, cfg.Name(kind, name))
			cancel()
			if err != nil {
				checked = false // it may exist: the reads below say what they can
				break
			}
			known = known || ok
		}
		conn.Close()
		if checked && !known {
			return st, unknownTeam(name, st.Store)
		}
	}
	var workers []registry.Worker
	var tasks []task.Task
	var werr, terr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		pctx, cancel := context.WithTimeout(ctx, statusWait)
		defer cancel()
		reg, err := fleet.OpenRegistry(pctx, url, harness.StatePath(home))
		if err != nil {
			werr = err
			return
		}
		defer reg.Close()
		workers, werr = reg.List(pctx, name)
	}()
	go func() {
		defer wg.Done()
		pctx, cancel := context.WithTimeout(ctx, statusWait)
		defer cancel()
		ts, err := harness.OpenTaskStore(pctx, url, home)
		if err != nil {
			terr = err
			return
		}
		defer ts.Close()
		tasks, terr = ts.All(pctx, name)
	}()
	wg.Wait()
	if werr != nil {
		st.Unavailable = append(st.Unavailable, "the worker records: "+werr.Error())
	}
	if terr != nil {
		st.Unavailable = append(st.Unavailable, "the task list: "+terr.Error())
	}
	if werr != nil && terr != nil {
		return st, fmt.Errorf("nothing of team %s could be read from %s (the store may be electing a leader or have lost its quorum; try again): %s",
			name, st.Store, strings.Join(st.Unavailable, "; "))
	}
	if len(workers) == 0 && len(tasks) == 0 && werr == nil && terr == nil {
		return st, unknownTeam(name, st.Store)
	}
	recipients := map[string]bool{team.Lead: true}
	for _, w := range workers {
		st.Workers = append(st.Workers, fleetWorker{Worker: w, State: w.StateAt(st.Now), HeartbeatAge: age(st.Now.Sub(w.Heartbeat))})
		st.Tokens += w.Tokens
		st.CostUSD += w.CostUSD
		recipients[w.Name] = true
	}
	done := map[string]bool{}
	for _, t := range tasks {
		if t.Status == task.Completed {
			done[t.ID] = true
		}
	}
	for _, t := range tasks {
		st.Queue.Total++
		lapsed := t.Owner != "" && !t.LeaseUntil.IsZero() && t.LeaseUntil.Before(st.Now)
		switch {
		case t.Status == task.Completed:
			st.Queue.Completed++
		case t.Owner != "" && !lapsed:
			st.Queue.InProgress++
		case allDoneIn(t.BlockedBy, done):
			st.Queue.Ready++
		default:
			st.Queue.Blocked++
		}
		if t.Owner != "" && t.Status != task.Completed {
			recipients[t.Owner] = true
			st.Claimed = append(st.Claimed, fleetClaim{ID: t.ID, Subject: t.Subject, Owner: t.Owner, Holder: t.Holder, LeaseUntil: t.LeaseUntil, Lapsed: lapsed})
		}
	}
	mctx, cancel := context.WithTimeout(ctx, statusWait)
	defer cancel()
	ms, err := fleet.OpenMailStore(mctx, url, harness.StatePath(home))
	if err != nil {
		st.Unavailable = append(st.Unavailable, "the messages waiting: "+err.Error())
		return st, nil
	}
	defer ms.Close()
	names := make([]string, 0, len(recipients))
	for r := range recipients {
		if len(r) <= mailbox.MaxName {
			names = append(names, r)
		}
	}
	sort.Strings(names)
	for _, r := range names {
		n, err := waiting(mctx, ms, name, r)
		if err != nil {
			st.Unavailable = append(st.Unavailable, fmt.Sprintf("the messages waiting for %s: %v", r, err))
			if mctx.Err() != nil {
				break // the rest would wait in vain
			}
			continue
		}
		st.Pending[r] = n
	}
	return st, nil
}

// waiting counts to's undelivered messages without taking them from it.
func waiting(ctx context.Context, ms mailbox.Store, team, to string) (int, error) {
	if c, ok := ms.(interface {
		Waiting(ctx context.Context, team, to string) (int, error)
	}); ok {
		return c.Waiting(ctx, team, to)
	}
	p, err := ms.Pending(ctx, team, to)
	return len(p), err
}

func unknownTeam(name, where string) error {
	return fmt.Errorf("team %q is unknown in %s: no worker has joined it and its task list is empty; name the team a worker was started with (ouro team worker --team NAME), and the same --store", name, where)
}

func allDoneIn(ids []string, done map[string]bool) bool {
	for _, id := range ids {
		if !done[id] {
			return false
		}
	}
	return true
}

func age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d < time.Minute {
		return d.Round(100*time.Millisecond).String() + " ago"
	}
	return d.Round(time.Second).String() + " ago"
}

func renderFleet(w io.Writer, st fleetStatus) {
	q := st.Queue
	fmt.Fprintf(w, "Team %s (%s): %d worker(s), %d task(s): %d ready, %d blocked, %d in progress, %d completed. %d tokens, $%.4f.\n",
		st.Team, st.Store, len(st.Workers), q.Total, q.Ready, q.Blocked, q.InProgress, q.Completed, st.Tokens, st.CostUSD)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	if len(st.Workers) > 0 {
		fmt.Fprintln(w, "\nWorkers")
		fmt.Fprintln(tw, "NAME\tHOST\tPID\tSTATE\tHEARTBEAT\tTASK\tDONE\tTOKENS\tCOST")
		for _, x := range st.Workers {
			state := string(x.State)
			if x.State == registry.Stopped {
				state += ": " + clipText(x.Stopped, 40)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t$%.4f\n", clipText(x.Name, 40), clipText(x.Host, 30), x.PID, state, x.HeartbeatAge, orDash(clipText(x.Task, 30)), x.TasksDone, x.Tokens, x.CostUSD)
		}
		tw.Flush()
	}
	if len(st.Claimed) > 0 {
		fmt.Fprintln(w, "\nClaimed tasks")
		fmt.Fprintln(tw, "TASK\tOWNER\tHOLDER\tLEASE")
		for _, c := range st.Claimed {
			lease := "expires in " + c.LeaseUntil.Sub(st.Now).Round(100*time.Millisecond).String()
			if c.Lapsed {
				lease = "lapsed " + age(st.Now.Sub(c.LeaseUntil)) + " (the task is free again)"
			}
			fmt.Fprintf(tw, "#%s %s\t%s\t%s\t%s\n", c.ID, clipText(c.Subject, 30), clipText(c.Owner, 40), clipText(c.Holder, 60), lease)
		}
		tw.Flush()
	}
	var names []string
	for n := range st.Pending {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", clipText(n, 40), st.Pending[n]))
	}
	fmt.Fprintf(w, "\nMessages waiting: %s\n", strings.Join(parts, ", "))
	if len(st.Unavailable) > 0 {
		fmt.Fprintln(w, "\nNot shown: could not be read (the store may be electing a leader or have lost its quorum; try again):")
		for _, u := range st.Unavailable {
			fmt.Fprintf(w, "  %s\n", clipText(u, 300))
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// clipText shortens s for a table, with control characters (a record's terminal
// escapes, newlines) shown as '?': records are written by other machines.
func clipText(s string, n int) string {
	r := []rune(textcut.Runes(s, n, "…"))
	for i, c := range r {
		if unicode.IsControl(c) {
			r[i] = '?'
		}
	}
	return string(r)
}
