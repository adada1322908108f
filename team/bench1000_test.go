//go:build linux

package team_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	mailsqlite "github.com/ouroagent/ouro/mailbox/sqlitestore"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	tasksqlite "github.com/ouroagent/ouro/task/sqlitestore"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
)

// worker is a stateless fake model for many teammates: a claimed task is marked
// completed with TaskUpdate, then reported; a message is answered (and who got it is
// recorded); anything else gets "ready".
type worker struct {
	mu    sync.Mutex
	pings map[string]bool // teammates that answered a "ping"
	work  time.Duration   // how long a task takes
}

var benchTaskRE = regexp.MustCompile(`You claimed task #(\d+)`)

func (*worker) Name() string { return "scripted" }

func (w *worker) Complete(ctx context.Context, req *llm.Request, _ llm.StreamFunc) (*llm.Response, error) {
	reply := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("ready")}}
	stop := llm.StopEndTurn
	last := req.Messages[len(req.Messages)-1]
	text := ""
	toolResult := false
	for _, b := range last.Content {
		text += b.Text
		toolResult = toolResult || b.Type == llm.BlockToolResult
	}
	switch {
	case toolResult:
		reply.Content = []llm.Block{llm.TextBlock("done")}
	case benchTaskRE.MatchString(text):
		id := benchTaskRE.FindStringSubmatch(text)[1]
		// A task takes a while, so that other teammates claim the next ones meanwhile.
		select {
		case <-time.After(w.work):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		in, _ := json.Marshal(map[string]string{"taskId": id, "status": "completed"})
		reply.Content = []llm.Block{llm.ToolUseBlock("toolu_done_"+id, "TaskUpdate", in)}
		stop = llm.StopToolUse
	case strings.Contains(text, "ping"):
		if sm := nameRE.FindStringSubmatch(req.System); sm != nil {
			w.mu.Lock()
			w.pings[sm[1]] = true
			w.mu.Unlock()
		}
		reply.Content = []llm.Block{llm.TextBlock("pong")}
	}
	return &llm.Response{Message: reply, StopReason: stop, Usage: scripted.EstimateUsage(req, reply)}, nil
}

// BenchmarkTeammates1000 spawns 1,000 in-process teammates on a fake model and lets them
// go idle, all alive at once; it reports the whole process's RSS (target: at most
// 400 MB) and the RSS and Go heap each teammate adds. Then, on a sample, it proves they
// still work: 20 teammates spread over the team each get a message and answer it, and
// 20 tasks added to the shared list are each claimed and completed by a teammate.
//
//	go test -run NONE -bench Teammates1000 -benchtime 1x ./team
//
// It runs on the in-memory stores and on SQLite (state.db, what a session uses).
func BenchmarkTeammates1000(b *testing.B) {
	b.Run("mem", func(b *testing.B) {
		benchTeammates(b, func() (mailbox.Store, task.Store) { return mailbox.NewMemStore(), task.NewMemStore() })
	})
	b.Run("sqlite", func(b *testing.B) {
		benchTeammates(b, func() (mailbox.Store, task.Store) {
			path := filepath.Join(b.TempDir(), "state.db")
			ts, err := tasksqlite.Open(path, tasksqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ms, err := mailsqlite.Open(path, 0)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { ts.Close(); ms.Close() })
			return ms, ts
		})
	})
}

func benchTeammates(b *testing.B, open func() (mailbox.Store, task.Store)) {
	const members, sample = 1000, 20
	for b.Loop() {
		mail, tasks := open()
		w := &worker{pings: map[string]bool{}, work: 500 * time.Millisecond}
		agents, _ := subagent.NewTool(subagent.Config{Provider: w, Model: "scripted", Tools: tool.NewRegistry()})
		tm := team.New(team.Config{Name: "bench", Holder: "lead", Agents: agents,
			Open: func() (mailbox.Store, task.Store, time.Duration, error) { return mail, tasks, time.Minute, nil },
			Warn: func(s string) { b.Log("warn: " + s) }})
		agents.SetSpawner(tm)
		ctx := context.Background()
		heap0, rss0 := memNow()
		began := time.Now()
		for i := range members {
			in, _ := json.Marshal(map[string]any{"description": "d", "prompt": "join", "subagent_type": "general-purpose", "run_in_background": true, "name": fmt.Sprintf("w%d", i)})
			if res, _ := agents.Run(ctx, tool.NewExec(tool.Call{ID: fmt.Sprint(i), Name: "Agent", Input: in}, nil, nil)); res.IsError {
				b.Fatalf("teammate %d: %s", i, res.Text())
			}
		}
		waitIdle(b, tm, members)
		spawned := time.Since(began)
		heap1, rss1 := memNow()
		cpu0 := cpuNow()
		time.Sleep(2 * time.Second)
		idleCPU := (cpuNow() - cpu0).Seconds() / 2
		alive := 0
		for _, m := range tm.Snapshot().Members {
			if m.Status == team.StatusIdle || m.Status == team.StatusWorking { // working: looking for a task
				alive++
			}
		}

		var names []string
		for i := 0; i < members; i += members / sample {
			names = append(names, fmt.Sprintf("w%d", i))
		}
		for _, n := range names {
			if _, err := tm.Send(ctx, mailbox.Message{From: team.Lead, To: n, Text: "ping"}); err != nil {
				b.Fatal(err)
			}
		}
		board := task.NewBoard(task.Config{Store: tasks, List: "bench", Holder: "lead"})
		for i := range sample {
			if _, err := board.Create(ctx, fmt.Sprintf("job %d", i), "", "", nil); err != nil {
				b.Fatal(err)
			}
		}
		deadline := time.Now().Add(2 * time.Minute)
		for {
			w.mu.Lock()
			answered := len(w.pings)
			w.mu.Unlock()
			all, _ := board.All(ctx)
			completed, owners := 0, map[string]bool{}
			for _, t := range all {
				if t.Status == task.Completed {
					completed++
					owners[t.Owner] = true
				}
			}
			if answered == sample && completed == sample {
				b.ReportMetric(float64(len(owners)), "task-claimers")
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d messages answered, %d of %d tasks completed", answered, sample, completed, sample)
			}
			time.Sleep(5 * time.Millisecond)
		}
		for _, n := range names {
			if !w.pings[n] {
				b.Fatalf("%s did not answer its message", n)
			}
		}
		tm.Close()
		b.ReportMetric(float64(alive), "teammates-alive")
		b.ReportMetric(float64(rss1)/(1<<20), "MB-RSS-process")
		b.ReportMetric(float64(rss1-rss0)/members/1024, "KB-RSS/teammate")
		b.ReportMetric(float64(heap1-heap0)/members/1024, "KB-heap/teammate")
		b.ReportMetric(spawned.Seconds(), "s-to-spawn-all")
		b.ReportMetric(idleCPU*100, "%CPU-while-idle")
	}
}

// cpuNow is the CPU (user and system) the process has spent.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// waitIdle waits for n teammates to have gone idle.
func waitIdle(b *testing.B, tm *team.Team, n int) {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		idle := 0
		for _, m := range tm.Snapshot().Members {
			if m.Status == team.StatusIdle {
				idle++
			}
		}
		if idle == n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d teammates idle", idle, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// memNow is the live Go heap after a collection, and the process's resident set (from
// /proc; 0 where there is none).
func memNow() (heap, rss uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	data, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			rss = kb << 10
		}
	}
	return ms.HeapAlloc, rss
}
