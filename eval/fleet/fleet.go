// Package fleet distributes an evaluation over machines through NATS JetStream. The
// coordinator (ouro eval --store URL --workers) puts one message per run on a work-queue
// stream; any number of workers (ouro eval worker --store URL) take them through one
// durable consumer, run them exactly as a local evaluation does (eval.RunJob) and publish
// each result, with its trajectory, to a results stream. The coordinator collects one
// result per run and assembles the same report a local evaluation makes.
//
// A worker keeps its message alive while it runs (in-progress acks every third of the
// ack wait) and acknowledges it only after its result is stored. A worker that dies
// stops doing so: the message is redelivered once the ack wait has passed and another
// worker runs it. A result published twice (a worker killed between storing its result
// and acknowledging) is dropped by the stream's duplicate window and, whatever happens,
// counted once by the coordinator.
package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/ouroagent/ouro/eval"
	"github.com/ouroagent/ouro/internal/natsjs"
)

// DefaultAckWait is how long a job may go without a sign of life from its worker
// before it is given to another.
const DefaultAckWait = time.Minute

// maxTranscript bounds the trajectory carried with a result (NATS's default message
// limit is 1 MB).
const maxTranscript = 900 << 10

// Job is one run of one task.
type Job struct {
	EvalID      string        `json:"eval_id"`
	TaskSet     string        `json:"task_set"`
	Task        string        `json:"task"`
	Run         int           `json:"run"`
	Model       string        `json:"model"`
	Script      string        `json:"script,omitempty"`
	TestTimeout time.Duration `json:"test_timeout,omitempty"`
}

func (j Job) key() string { return j.Task + "#" + strconv.Itoa(j.Run) }

// Result is a job's result as a worker publishes it.
type Result struct {
	EvalID     string         `json:"eval_id"`
	Worker     string         `json:"worker"`
	Result     eval.RunResult `json:"result"`
	Transcript []byte         `json:"transcript,omitempty"`
}

// names are the streams, subjects and consumer of the fleet in cfg's namespace.
type names struct {
	jobsStream, resultsStream, jobs, results, consumer string
}

func namesOf(cfg natsjs.Config) names {
	root := "ouro"
	if cfg.Namespace != "" {
		root = "ouro_" + cfg.Namespace
	}
	return names{
		jobsStream:    cfg.Name("eval", "jobs"),
		resultsStream: cfg.Name("eval", "results"),
		jobs:          root + ".eval.jobs",
		results:       root + ".eval.results",
		consumer:      "workers",
	}
}

// streams makes (or finds) the job queue and the results stream, and the workers'
// durable consumer with ackWait (0: DefaultAckWait, or what it has).
func streams(ctx context.Context, c *natsjs.Conn, ackWait time.Duration) (names, jetstream.Consumer, error) {
	n := namesOf(c.Cfg)
	for _, sc := range []jetstream.StreamConfig{
		{Name: n.jobsStream, Description: "ouro eval: runs waiting for a worker", Subjects: []string{n.jobs + ".>"},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Replicas: c.Replicas(), Duplicates: 10 * time.Minute},
		{Name: n.resultsStream, Description: "ouro eval: results of runs", Subjects: []string{n.results + ".>"},
			Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, Replicas: c.Replicas(),
			MaxAge: 7 * 24 * time.Hour, Duplicates: time.Hour},
	} {
		if _, err := c.JS.CreateStream(ctx, sc); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return n, nil, fmt.Errorf("JetStream stream %s at %s: %w", sc.Name, c.Cfg.Where(), err)
		}
	}
	cc := jetstream.ConsumerConfig{Durable: n.consumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait,
		FilterSubject: n.jobs + ".>", MaxAckPending: 1000, Description: "ouro eval workers"}
	if ackWait <= 0 {
		if cons, err := c.JS.Consumer(ctx, n.jobsStream, n.consumer); err == nil {
			return n, cons, nil
		}
		cc.AckWait = DefaultAckWait
	}
	cons, err := c.JS.CreateOrUpdateConsumer(ctx, n.jobsStream, cc)
	if err != nil {
		return n, nil, fmt.Errorf("JetStream consumer %s on %s: %w", n.consumer, n.jobsStream, err)
	}
	return n, cons, nil
}

// Coordinate runs the evaluation o on the fleet: it queues every run, waits for one
// result of each, writes the trajectories under o.Out and returns the report, the same
// in form as eval.Run's. Progress lines go to o.Progress as results arrive.
func Coordinate(ctx context.Context, c *natsjs.Conn, o eval.Options, ackWait time.Duration) (eval.Report, error) {
	if err := eval.Prepare(&o); err != nil {
		return eval.Report{}, err
	}
	n, _, err := streams(ctx, c, ackWait)
	if err != nil {
		return eval.Report{}, err
	}
	id := time.Now().UTC().Format("20060102-150405") + "-" + strings.ToLower(nuid.Next()[12:])
	started := time.Now()
	results := make([][]eval.RunResult, len(o.Tasks))
	index := map[string][2]int{}
	for ti, t := range o.Tasks {
		results[ti] = make([]eval.RunResult, o.Runs)
		for r := 1; r <= o.Runs; r++ {
			index[Job{Task: t.Name, Run: r}.key()] = [2]int{ti, r - 1}
		}
	}
	// Follow the results before queueing, so that none is missed.
	rcons, err := c.JS.OrderedConsumer(ctx, n.resultsStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{n.results + "." + id}})
	if err != nil {
		return eval.Report{}, fmt.Errorf("following the results: %w", err)
	}
	it, err := rcons.Messages()
	if err != nil {
		return eval.Report{}, fmt.Errorf("following the results: %w", err)
	}
	defer it.Stop()
	go func() { <-ctx.Done(); it.Stop() }()
	for _, t := range o.Tasks {
		for r := 1; r <= o.Runs; r++ {
			j := Job{EvalID: id, TaskSet: o.TaskSet, Task: t.Name, Run: r, Model: o.Model, Script: o.Script, TestTimeout: o.TestTimeout}
			data, _ := json.Marshal(j)
			if _, err := c.JS.Publish(ctx, n.jobs+"."+id, data, jetstream.WithMsgID(id+"."+j.key())); err != nil {
				return eval.Report{}, fmt.Errorf("queueing %s run %d: %w", t.Name, r, err)
			}
		}
	}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "ouro eval: %d runs queued as evaluation %s; start workers with: ouro eval worker --store URL\n", len(index), id)
	}
	got := map[string]bool{}
	for len(got) < len(index) {
		m, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return eval.Report{}, ctx.Err()
			}
			return eval.Report{}, fmt.Errorf("reading results: %w", err)
		}
		var res Result
		if err := json.Unmarshal(m.Data(), &res); err != nil || res.EvalID != id {
			continue
		}
		k := Job{Task: res.Result.Task, Run: res.Result.Run}.key()
		at, ok := index[k]
		if !ok || got[k] {
			continue // not a run of this evaluation, or one already counted
		}
		got[k] = true
		r := res.Result
		r.Transcript = ""
		if len(res.Transcript) > 0 {
			dst := filepath.Join(o.Out, "trajectories", fmt.Sprintf("%s-run%d.jsonl", r.Task, r.Run))
			if err := os.WriteFile(dst, res.Transcript, 0o644); err == nil {
				r.Transcript = dst
			}
		}
		results[at[0]][at[1]] = r
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s  (%s)\n", eval.ProgressLine(r), res.Worker)
		}
	}
	return eval.Assemble(o, started, results), nil
}

// WorkerOptions configure a worker.
type WorkerOptions struct {
	// Name identifies the worker in results (default host:pid).
	Name string
	// Tasks is the task set folder; "" uses the one each job names.
	Tasks string
	// Out keeps the worker's state and working copies (default a temporary folder).
	Out string
	// Idle, when set, ends the worker once no job came for that long.
	Idle time.Duration
	// MaxRuns, when set, ends the worker after that many runs.
	MaxRuns         int
	Progress        io.Writer
	SandboxLauncher bool
	Version         string
}

// Work takes jobs until ctx ends (or Idle, MaxRuns), running each and publishing its
// result before acknowledging it. It returns how many runs it did.
func Work(ctx context.Context, c *natsjs.Conn, w WorkerOptions) (int, error) {
	n, cons, err := streams(ctx, c, 0)
	if err != nil {
		return 0, err
	}
	if w.Name == "" {
		host, _ := os.Hostname()
		w.Name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	if w.Out == "" {
		if w.Out, err = os.MkdirTemp("", "ouro-eval-worker-"); err != nil {
			return 0, err
		}
		defer os.RemoveAll(w.Out)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("JetStream consumer %s: %w", n.consumer, err)
	}
	ackWait := info.Config.AckWait
	sets := map[string][]eval.Task{}
	done := 0
	lastJob := time.Now()
	for ctx.Err() == nil && (w.MaxRuns <= 0 || done < w.MaxRuns) {
		wait, cancel := context.WithTimeout(ctx, time.Second)
		m, err := cons.Next(jetstream.FetchContext(wait))
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			if errors.Is(err, jetstream.ErrNoMessages) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
				if w.Idle > 0 && time.Since(lastJob) > w.Idle {
					break
				}
				continue
			}
			return done, fmt.Errorf("taking a job: %w", err)
		}
		lastJob = time.Now()
		var j Job
		if err := json.Unmarshal(m.Data(), &j); err != nil || j.EvalID == "" || j.Task == "" || j.Run <= 0 {
			m.Term() // not a job: never give it to anyone again
			continue
		}
		res := run(ctx, w, j, sets, m, ackWait)
		if ctx.Err() != nil {
			break // interrupted: the job goes to another worker after the ack wait
		}
		data, _ := json.Marshal(res)
		if len(data) > maxTranscript+64<<10 {
			res.Transcript = nil
			data, _ = json.Marshal(res)
		}
		if _, err := c.JS.Publish(ctx, n.results+"."+j.EvalID, data, jetstream.WithMsgID(j.EvalID+"."+j.key())); err != nil {
			m.Nak()
			return done, fmt.Errorf("publishing the result of %s run %d: %w", j.Task, j.Run, err)
		}
		if err := m.DoubleAck(ctx); err != nil && w.Progress != nil {
			fmt.Fprintf(w.Progress, "ouro eval worker: acknowledging %s run %d: %v (its result is stored; a redelivery is counted once)\n", j.Task, j.Run, err)
		}
		done++
		lastJob = time.Now()
		if w.Progress != nil {
			fmt.Fprintln(w.Progress, eval.ProgressLine(res.Result))
		}
	}
	return done, nil
}

// run runs one job, telling the server every third of the ack wait that it is alive.
func run(ctx context.Context, w WorkerOptions, j Job, sets map[string][]eval.Task, m jetstream.Msg, ackWait time.Duration) Result {
	res := Result{EvalID: j.EvalID, Worker: w.Name}
	fail := func(format string, a ...any) Result {
		res.Result = eval.RunResult{Task: j.Task, Run: j.Run, Status: "failed", Failures: []string{fmt.Sprintf(format, a...)}}
		return res
	}
	dir := w.Tasks
	if dir == "" {
		dir = j.TaskSet
	}
	tasks, ok := sets[dir]
	if !ok {
		var err error
		if tasks, err = eval.LoadTasks(dir); err != nil {
			return fail("worker %s cannot load the task set %s: %v (start it with --tasks DIR)", w.Name, dir, err)
		}
		sets[dir] = tasks
	}
	var task *eval.Task
	for i := range tasks {
		if tasks[i].Name == j.Task {
			task = &tasks[i]
		}
	}
	if task == nil {
		return fail("worker %s has no task %s in %s", w.Name, j.Task, dir)
	}
	o := eval.Options{Tasks: []eval.Task{*task}, TaskSet: j.TaskSet, Model: j.Model, Script: j.Script, TestTimeout: j.TestTimeout,
		Out: w.Out, Parallel: 1, SandboxLauncher: w.SandboxLauncher, Version: w.Version}
	if err := eval.Prepare(&o); err != nil {
		return fail("worker %s: %v", w.Name, err)
	}
	alive, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(max(ackWait/3, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-alive.Done():
				return
			case <-t.C:
				m.InProgress()
			}
		}
	}()
	r := eval.RunJob(ctx, o, *task, j.Run)
	stop()
	wg.Wait()
	if r.Transcript != "" {
		if b, err := os.ReadFile(r.Transcript); err == nil && len(b) <= maxTranscript {
			res.Transcript = b
		}
		os.Remove(r.Transcript)
	}
	r.Transcript = ""
	res.Result = r
	return res
}
