package sqlitestore_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/task/sqlitestore"
	"github.com/ouroagent/ouro/task/storetest"
)

// The tests start this test binary again as helper processes (the claimers of the race
// test, the writer killed mid-transaction); helperMain runs the helper's part.
func TestMain(m *testing.M) {
	if role := os.Getenv("TASKSTORE_HELPER"); role != "" {
		os.Exit(helperMain(role))
	}
	os.Exit(m.Run())
}

func helperMain(role string) int {
	path := os.Getenv("TASKSTORE_PATH")
	s, err := sqlitestore.Open(path, sqlitestore.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer s.Close()
	ctx := context.Background()
	switch role {
	case "claim":
		// Try to claim every task once, in a random order, and print each one won.
		n, _ := strconv.Atoi(os.Getenv("TASKSTORE_TASKS"))
		me := os.Getenv("TASKSTORE_ME")
		b := task.NewBoard(task.Config{Store: s, List: "race", Holder: me})
		out := bufio.NewWriter(os.Stdout)
		defer out.Flush()
		for _, i := range rand.Perm(n) {
			id := strconv.Itoa(i + 1)
			_, err := b.Update(ctx, id, task.Update{Owner: &me})
			switch {
			case err == nil:
				fmt.Fprintln(out, id)
			case strings.Contains(err.Error(), "already claimed"):
			default:
				fmt.Fprintln(os.Stderr, "claim", id, err)
				return 1
			}
		}
		return 0
	case "hang":
		// Open a write transaction, write, say so, and wait to be killed before committing.
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_txlock=immediate")
		if err != nil {
			return 2
		}
		tx, err := db.Begin()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		if _, err := tx.Exec(`UPDATE tasks SET data = 'torn', rev = rev + 100`); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Println("writing")
		time.Sleep(time.Minute)
		return 0
	}
	return 2
}

func open(t testing.TB) *sqlitestore.Store {
	s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "state.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) task.Store { return open(t) })
}

// Issue 14's done-criterion: 8 processes making 1,000 claim attempts each on one shared
// list claim every task exactly once.
func TestClaimRaceAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("8 processes")
	}
	const procs, tasks = 8, 1000
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := sqlitestore.Open(path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i := range tasks {
		if _, err := s.Create(ctx, "race", task.Task{Subject: fmt.Sprint("t", i), Status: task.Pending}); err != nil {
			t.Fatal(err)
		}
	}
	won := make([][]string, procs)
	var wg sync.WaitGroup
	start := time.Now()
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "TASKSTORE_HELPER=claim", "TASKSTORE_PATH="+path,
				"TASKSTORE_TASKS="+strconv.Itoa(tasks), fmt.Sprint("TASKSTORE_ME=p", p))
			var errb strings.Builder
			cmd.Stderr = &errb
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("claimer p%d: %v\n%s", p, err, errb.String())
			}
			won[p] = strings.Fields(string(out))
		}()
	}
	wg.Wait()
	t.Logf("%d processes × %d claim attempts in %s", procs, tasks, time.Since(start).Round(time.Millisecond))
	claimedBy := map[string]int{}
	for p, ids := range won {
		for _, id := range ids {
			if q, dup := claimedBy[id]; dup {
				t.Errorf("double claim: task %s claimed by p%d and p%d", id, q, p)
			}
			claimedBy[id] = p
		}
	}
	all, err := s.All(ctx, "race")
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range all {
		p, ok := claimedBy[tk.ID]
		if !ok || tk.Owner != fmt.Sprint("p", p) {
			t.Errorf("task %s: stored owner %q, claimed by p%d (%v)", tk.ID, tk.Owner, p, ok)
		}
	}
	if len(claimedBy) != tasks {
		t.Errorf("%d of %d tasks were claimed", len(claimedBy), tasks)
	}
}

// A process killed in the middle of a write transaction leaves the last committed state,
// and the next writer is not stuck behind it.
func TestKilledMidTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := sqlitestore.Open(path, sqlitestore.Options{BusyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	created, err := s.Create(ctx, "l", task.Task{Subject: "keep me", Status: task.Pending})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TASKSTORE_HELPER=hang", "TASKSTORE_PATH="+path)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "writing\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q", line)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	got, err := s.Get(ctx, "l", created.ID)
	if err != nil || got.Subject != "keep me" || got.Rev != created.Rev {
		t.Fatalf("after the killed write: %+v, %v", got, err)
	}
	n := got
	n.Subject = "changed"
	if err := s.Apply(ctx, "l", []task.Change{{Op: task.Put, ID: got.ID, Rev: got.Rev, Task: n}}); err != nil {
		t.Fatalf("writing after a writer was killed: %v", err)
	}
}

func TestDamagedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("this is not a database\n", 400)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := sqlitestore.Open(path, sqlitestore.Options{})
	if err == nil || !strings.Contains(err.Error(), "damaged or not an SQLite database") || !strings.Contains(err.Error(), "move it aside") {
		t.Fatalf("opening a file that is no database: %v", err)
	}
}

func TestDamagedRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := sqlitestore.Open(path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b := task.NewBoard(task.Config{Store: s, List: "l", Holder: "me"})
	b.Create(ctx, "one", "", "", nil)
	b.Create(ctx, "two", "", "", nil)
	db, _ := sql.Open("sqlite", path)
	if _, err := db.Exec(`UPDATE tasks SET data = '{not json' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	all, err := b.All(ctx)
	if err != nil || len(all) != 2 || !strings.Contains(all[0].Note, "damaged") {
		t.Fatalf("a damaged row: %+v, %v", all, err)
	}
	del := task.Deleted
	if _, err := b.Update(ctx, "1", task.Update{Status: &del}); err != nil {
		t.Fatalf("deleting the damaged task: %v", err)
	}
}

func TestLockedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := sqlitestore.Open(path, sqlitestore.Options{BusyTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	db, _ := sql.Open("sqlite", "file:"+path+"?_txlock=exclusive")
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO task_lists (list, next) VALUES ('x', 1)`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Create(ctx, "l", task.Task{Subject: "x"})
	if err == nil || !strings.Contains(err.Error(), "stayed locked by another process") {
		t.Fatalf("writing while another connection holds the lock: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("waited %s on a 200ms busy timeout", d)
	}
	tx.Rollback()
	if _, err := s.Create(ctx, "l", task.Task{Subject: "x"}); err != nil {
		t.Fatalf("after the lock was released: %v", err)
	}
	if errors.Is(err, task.ErrConflict) {
		t.Fatal("unexpected conflict")
	}
}

// BenchmarkClaim reports claims per second on one list: each claims a fresh task
// (read, check its blockers, compare-and-set write in one BEGIN IMMEDIATE transaction).
func BenchmarkClaim(b *testing.B) {
	s := open(b)
	defer s.Close()
	ctx := context.Background()
	board := task.NewBoard(task.Config{Store: s, List: "bench", Holder: "me"})
	for range b.N {
		if _, err := board.Create(ctx, "t", "", "", nil); err != nil {
			b.Fatal(err)
		}
	}
	owner := "me"
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		if _, err := board.Update(ctx, strconv.Itoa(i+1), task.Update{Owner: &owner}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "claims/s")
}

// BenchmarkClaimParallel has claimers racing for the same tasks; it reports claim
// attempts (won or refused) per second, and fails on a double claim.
func BenchmarkClaimParallel(b *testing.B) {
	s := open(b)
	defer s.Close()
	ctx := context.Background()
	setup := task.NewBoard(task.Config{Store: s, List: "bench", Holder: "setup"})
	for range b.N {
		if _, err := setup.Create(ctx, "t", "", "", nil); err != nil {
			b.Fatal(err)
		}
	}
	var won sync.Map
	b.ResetTimer()
	start := time.Now()
	var worker int64
	var mu sync.Mutex
	b.RunParallel(func(pb *testing.PB) {
		mu.Lock()
		worker++
		me := fmt.Sprint("w", worker)
		mu.Unlock()
		board := task.NewBoard(task.Config{Store: s, List: "bench", Holder: me})
		i := 0
		for pb.Next() {
			i = i%b.N + 1
			if _, err := board.Update(ctx, strconv.Itoa(i), task.Update{Owner: &me}); err == nil {
				if _, dup := won.LoadOrStore(i, me); dup {
					b.Errorf("task %d claimed twice", i)
				}
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "attempts/s")
}

// makeTasks fills a store at path with n tasks of long descriptions (many pages) and
// returns the file's bytes once it is closed.
func makeTasks(t *testing.T, path string, n int) []byte {
	t.Helper()
	s, err := sqlitestore.Open(path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := s.Create(context.Background(), "l", task.Task{Subject: fmt.Sprint("task ", i), Description: strings.Repeat("d", 600), Status: task.Pending}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A store with a damaged page in the middle of its tasks is refused at Open (it was
// listed and written into: only some reads met the damage), and one emptied to zero
// bytes is refused, not taken for a new empty store; neither file is written.
func TestDamagedMiddlePageAndEmptiedFileAreRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	data := makeTasks(t, path, 200)
	const page = 4096
	mid := len(data) / page / 2
	copy(data[mid*page:(mid+1)*page], strings.Repeat("\x5a", page))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlitestore.Open(path, sqlitestore.Options{}); err == nil || !strings.Contains(err.Error(), "is damaged") || !strings.Contains(err.Error(), "move it aside") {
		t.Fatalf("a damaged middle page: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(data) {
		t.Error("the damaged store was written to")
	}

	path = filepath.Join(t.TempDir(), "state.db")
	makeTasks(t, path, 3)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlitestore.Open(path, sqlitestore.Options{}); err == nil || !strings.Contains(err.Error(), "is empty (0 bytes)") || !strings.Contains(err.Error(), "the tasks in it are lost") {
		t.Fatalf("an emptied store: %v", err)
	}
	if st, _ := os.Stat(path); st.Size() != 0 {
		t.Error("the emptied store was written to")
	}
}
