package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// The crash test re-runs this test binary as a helper that appends to a transcript until
// it is killed. These variables select the helper role and tell it where to write.
const (
	crashProjectEnv = "OURO_SESSION_TEST_CRASH_PROJECT"
	crashAppendEnv  = "OURO_SESSION_TEST_CRASH_APPEND" // empty: start a new transcript
)

func TestMain(m *testing.M) {
	if project := os.Getenv(crashProjectEnv); project != "" {
		os.Exit(crashHelper(project, os.Getenv(crashAppendEnv)))
	}
	os.Exit(m.Run())
}

// crashHelper writes turns like the agent loop does (a prompt, then assistant calls and
// user results, with a sync now and then), says "ready <path>" after a few turns, and
// keeps writing until it is killed. If the test goes away, its stdin closes and it exits.
func crashHelper(project, path string) int {
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(3)
	}()
	var w *Writer
	var err error
	if path == "" {
		w, err = Create(project, Meta{Model: "crash-helper"})
	} else {
		w, err = OpenAppend(path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	pid := os.Getpid()
	if err := w.AppendMessage(llm.UserText(fmt.Sprintf("round of process %d", pid))); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// Large lines make it likelier that the kill lands in the middle of a write.
	big := strings.Repeat("output ", 48<<10/7)
	for i := range 2000 {
		calls := []llm.Block{llm.TextBlock(fmt.Sprintf("turn %d", i))}
		var results []llm.Block
		for j := range 3 {
			id := fmt.Sprintf("toolu_%d_%d_%d", pid, i, j)
			calls = append(calls, llm.ToolUseBlock(id, "Bash", json.RawMessage(`{"command":"echo hi"}`)))
			results = append(results, llm.ToolResultBlock(id, big, false))
		}
		if err := w.AppendMessage(assistant(calls...)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		if i == 5 {
			// Tell the test just before a results line: the kill lands while the tools'
			// results are being encoded or written, the moment a real crash hurts most.
			fmt.Printf("ready %s\n", w.Path())
		}
		if err := w.AppendMessage(user(results...)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		if i%4 == 3 {
			if err := w.Sync(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
		}
	}
	select {} // wait for the kill, so the test always sees a killed process
}

// runAndKill starts the helper, waits until it has written some turns and kills it with
// SIGKILL while it is still writing. It returns the transcript's path.
func runAndKill(t *testing.T, project, path string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashProjectEnv+"="+project, crashAppendEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, readErr := bufio.NewReader(stdout).ReadString('\n')
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitErr := cmd.Wait()
	if readErr != nil || !strings.HasPrefix(line, "ready ") {
		t.Fatalf("helper said %q (%v); stderr: %s", line, readErr, stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(waitErr, &exit) || exit.Exited() {
		t.Fatalf("helper was not killed: %v; stderr: %s", waitErr, stderr.String())
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "ready "))
}

func TestKilledWriterLeavesALoadableConversation(t *testing.T) {
	project := t.TempDir()
	path := ""
	const rounds = 2
	for round := 1; round <= rounds; round++ {
		path = runAndKill(t, project, path) // rounds after the first resume the same file

		tr := mustLoad(t, path)
		if tr.Skipped > round {
			t.Errorf("round %d: %d lines skipped, want at most one torn line per crash: %q", round, tr.Skipped, tr.Warnings)
		}
		prompts := 0
		for i, e := range tr.Entries {
			if i > 0 && e.ParentUUID != tr.Entries[i-1].UUID {
				t.Fatalf("round %d: entry on line %d chains to %q, not to the entry before it", round, e.Line, e.ParentUUID)
			}
			if e.Message != nil && strings.HasPrefix(e.Message.Text(), "round of process") {
				prompts++
			}
		}
		if prompts != round {
			t.Errorf("round %d: %d opening prompts survived, want %d", round, prompts, round)
		}
		msgs, repairs := tr.Messages()
		// Where the kill landed varies; say what this run exercised.
		t.Logf("round %d: %d entries, %d torn lines skipped, %d repairs", round, len(tr.Entries), tr.Skipped, len(repairs))
		if err := llm.ValidateConversation(msgs); err != nil {
			t.Fatalf("round %d: the conversation after the crash is invalid: %v (repairs: %v)", round, err, repairs)
		}
		if len(msgs) < 2*5*round {
			t.Errorf("round %d: only %d messages survived", round, len(msgs))
		}
	}
}
