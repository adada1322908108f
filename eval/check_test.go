package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// checkedTasks are the tasks of the set that carry a check script.
func checkedTasks(t *testing.T) []Task {
	t.Helper()
	var out []Task
	for _, tk := range loadTaskSet(t) {
		if tk.Check != "" {
			out = append(out, tk)
		}
	}
	return out
}

// untouchedCopy is a fresh copy of the task's repository, as a run starts with it.
func untouchedCopy(t *testing.T, tk Task) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	if err := os.CopyFS(work, os.DirFS(tk.RepoDir())); err != nil {
		t.Fatal(err)
	}
	return work
}

// TestChecksFailOnTheUntouchedRepo: every check says the outcome does not hold before
// anything was done (no fix, no answer). That they pass on a correct solution is
// TestRunTaskSet's reference runs, which run each check after the reference trajectory.
func TestChecksFailOnTheUntouchedRepo(t *testing.T) {
	isolate(t)
	tasks := checkedTasks(t)
	if len(tasks) < 8 {
		t.Fatalf("%d tasks carry a check; the set promises at least 8", len(tasks))
	}
	for _, tk := range tasks {
		t.Run(tk.Name, func(t *testing.T) {
			if tk.Language == "python" && !hasPython() {
				t.Skip("python3 is not installed")
			}
			work := untouchedCopy(t, tk)
			msg := RunCheck(context.Background(), tk, work, "", 2*time.Minute)
			if msg == "" {
				t.Fatal("the check passes on the untouched repository with no answer")
			}
			if !strings.Contains(msg, tk.Check) {
				t.Errorf("the failure does not name the check: %s", msg)
			}
		})
	}
}

// TestCheckReadsTheAnswerAsData: a scout's check gets the answer on stdin and nothing in
// it runs.
func TestCheckReadsTheAnswerAsData(t *testing.T) {
	tk, err := LoadTask(filepath.Join(taskSetDir, "go-scout-port"))
	if err != nil {
		t.Fatal(err)
	}
	work := untouchedCopy(t, tk)
	marker := filepath.Join(t.TempDir(), "ran")
	answer := "$(touch " + marker + ") `touch " + marker + "` the port is 8421; touch " + marker
	if msg := RunCheck(context.Background(), tk, work, answer, time.Minute); msg != "" {
		t.Errorf("a right answer fails: %s", msg)
	}
	if exists(marker) {
		t.Error("text of the answer ran as a command")
	}
	if msg := RunCheck(context.Background(), tk, work, "the port is 18080 (and 84210 is not it)", time.Minute); msg == "" {
		t.Error("a wrong answer passes")
	}
}

// TestRunFailsWhenTheCheckFails: a run whose test passes but whose check does not is no
// success, and the report says what the check printed.
func TestRunFailsWhenTheCheckFails(t *testing.T) {
	isolate(t)
	src, err := LoadTask(filepath.Join(taskSetDir, "go-fix-max"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "go-fix-max")
	if err := os.CopyFS(dir, os.DirFS(src.Dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "check.sh"), []byte("echo 'Max is wrong for 10, 2' >&2\nexit 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := LoadTask(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Tasks: []Task{tk}, Model: Scripted, Out: t.TempDir(), Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Tasks[0].Runs[0]
	if r.Success || !r.FalseCompletion {
		t.Errorf("success %v false completion %v; want a claimed run that failed its check", r.Success, r.FalseCompletion)
	}
	if !containsAny(r.Failures, "the check check.sh fails", "Max is wrong for 10, 2") {
		t.Errorf("failures %q do not carry the check's output", r.Failures)
	}
}

func TestLoadTaskRefusesABadCheck(t *testing.T) {
	src, err := LoadTask(filepath.Join(taskSetDir, "go-scout-port"))
	if err != nil {
		t.Fatal(err)
	}
	for name, check := range map[string]string{
		"outside the folder": "../go-fix-max/check.sh",
		"absolute":           "/bin/true",
		"missing":            "no-such-check.sh",
		"a folder":           "repo",
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "task")
			if err := os.CopyFS(dir, os.DirFS(src.Dir)); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "task.json"))
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(strings.Replace(string(data), `"check": "check.sh"`, `"check": "`+check+`"`, 1))
			if err := os.WriteFile(filepath.Join(dir, "task.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadTask(dir); err == nil || !strings.Contains(err.Error(), "check") {
				t.Errorf("LoadTask with check %q: %v; want it refused", check, err)
			}
		})
	}
}
