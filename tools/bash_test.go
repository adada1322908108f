//go:build linux || darwin

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/tool"
)

func bashCall(t testing.TB, command string, timeoutMS float64) json.RawMessage {
	t.Helper()
	in := map[string]any{"command": command}
	if timeoutMS != 0 {
		in["timeout"] = timeoutMS
	}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func runBash(t testing.TB, b *Bash, command string, timeoutMS float64) tool.Result {
	t.Helper()
	res, err := b.Run(context.Background(), tool.ExecInput(bashCall(t, command, timeoutMS)))
	if err != nil {
		t.Fatalf("Run(%q): %v", command, err)
	}
	return res
}

// shells lists the shells the tool may run on this machine: bash, and sh when it is a
// different program (dash on Debian), which is the fallback without bash.
func shells(t *testing.T) map[string]string {
	out := map[string]string{}
	if p, err := exec.LookPath("bash"); err == nil {
		out["bash"] = p
	}
	if p, err := exec.LookPath("sh"); err == nil {
		if rp, err := filepath.EvalSymlinks(p); err == nil && filepath.Base(rp) != "bash" {
			out["sh"] = p
		}
	}
	if len(out) == 0 {
		t.Skip("no shell on PATH")
	}
	return out
}

func TestBashSpec(t *testing.T) {
	b := NewBash(BashConfig{Dir: t.TempDir()})
	spec := b.Spec()
	if spec.Name != "Bash" || b.ReadOnly() {
		t.Fatalf("name %q, read-only %v; want Bash, false", spec.Name, b.ReadOnly())
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Additional *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(spec.InputSchema, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	var props []string
	for k := range schema.Properties {
		props = append(props, k)
	}
	if schema.Type != "object" || len(props) != 3 || schema.Properties["command"] == nil ||
		schema.Properties["timeout"] == nil || schema.Properties["description"] == nil {
		t.Errorf("properties = %v, want command, timeout, description", props)
	}
	if !strings.Contains(string(schema.Properties["timeout"]), "600000") {
		t.Errorf("timeout schema %s does not state the maximum", schema.Properties["timeout"])
	}
	if len(schema.Required) != 1 || schema.Required[0] != "command" {
		t.Errorf("required = %v, want [command]", schema.Required)
	}
	if schema.Additional == nil || *schema.Additional {
		t.Errorf("additionalProperties must be false")
	}
	for _, want := range []string{"120000", "600000", "30000", "persists", "stdin", "Read"} {
		if !strings.Contains(spec.Description, want) {
			t.Errorf("description does not mention %q", want)
		}
	}
}

func TestBashCommands(t *testing.T) {
	cases := []struct {
		name, cmd string
		want      string
		isError   bool
	}{
		{"echo", "echo hello", "hello", false},
		{"no output", "true", "(no output)", false},
		{"exit code", "exit 3", "(no output)\nExit code 3", true},
		{"exit after output", "echo out; exit 7", "out\nExit code 7", true},
		{"last status is the exit code", "echo x; false", "x\nExit code 1", true},
		{"$? is the command's own", "false; echo $?", "1", false},
		{"order of stdout and stderr", "echo a; echo b >&2; echo c; echo d >&2", "a\nb\nc\nd", false},
		{"quotes run verbatim", `printf '%s|' "it's" 'say "hi"' \$HOME 'a\nb'`, `it's|say "hi"|$HOME|a\nb|`, false},
		{"several lines", "echo one\necho two\n\necho three", "one\ntwo\nthree", false},
		{"quoted heredoc", "cat <<'EOF'\nline $1 `x` \"q\" 'q'\n  indented\nEOF", "line $1 `x` \"q\" 'q'\n  indented", false},
		{"heredoc expands", "v=42\ncat <<EOF\nv=$v\nEOF", "v=42", false},
		{"no positional parameters", `echo "$#:$1"`, "0:", false},
		{"stdin is empty", "cat; echo done", "done", false},
		{"read gets end of file", "read x || echo eof", "eof", false},
		{"invalid UTF-8 is replaced", `printf 'a\377\376b'`, "a\uFFFDb", false},
		{"killed by a signal", "echo before; kill -KILL $$", "before\nKilled by signal 9 (killed)", true},
		{"syntax error is reported", "if then", "", true},
	}
	for shName, shPath := range shells(t) {
		t.Run(shName, func(t *testing.T) {
			t.Parallel()
			b := newBashWithShell(BashConfig{Dir: t.TempDir()}, shPath)
			for _, tc := range cases {
				// A generous timeout: a command that wrongly waits for stdin shows up as
				// a timeout failure instead of hanging the suite.
				res := runBash(t, b, tc.cmd, 60_000)
				got := res.Text()
				if tc.want != "" && got != tc.want {
					t.Errorf("%s: %q\n got %q\nwant %q", tc.name, tc.cmd, got, tc.want)
				}
				if res.IsError != tc.isError {
					t.Errorf("%s: is_error = %v, want %v (output %q)", tc.name, res.IsError, tc.isError, got)
				}
			}
		})
	}
}

func TestBashSyntaxErrorSaysSo(t *testing.T) {
	t.Parallel()
	b := NewBash(BashConfig{Dir: t.TempDir()})
	res := runBash(t, b, "if then", 0)
	if !res.IsError || !strings.Contains(res.Text(), "Exit code 2") || !strings.Contains(strings.ToLower(res.Text()), "syntax error") {
		t.Errorf("got %q (is_error %v), want a syntax error with exit code 2", res.Text(), res.IsError)
	}
}

func TestBashCwdPersists(t *testing.T) {
	for shName, shPath := range shells(t) {
		t.Run(shName, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			b := newBashWithShell(BashConfig{Dir: dir}, shPath)
			if b.Cwd() != dir {
				t.Fatalf("initial Cwd() = %q, want %q", b.Cwd(), dir)
			}
			runBash(t, b, "mkdir -p sub/deeper 'with space' && cd sub", 0)
			sub := realDir(t, filepath.Join(dir, "sub"))
			if got := runBash(t, b, "pwd", 0).Text(); got != sub {
				t.Errorf("pwd after cd sub = %q, want %q", got, sub)
			}
			if b.Cwd() != sub {
				t.Errorf("Cwd() = %q, want %q", b.Cwd(), sub)
			}
			// A cd in a command that then fails, or exits, still carries over.
			res := runBash(t, b, "cd deeper; exit 4", 0)
			if !strings.Contains(res.Text(), "Exit code 4") {
				t.Errorf("exit 4 reported as %q", res.Text())
			}
			if got, want := runBash(t, b, "pwd", 0).Text(), filepath.Join(sub, "deeper"); got != want {
				t.Errorf("pwd after cd deeper; exit 4 = %q, want %q", got, want)
			}
			runBash(t, b, `cd "../../with space"`, 0)
			if got, want := b.Cwd(), realDir(t, filepath.Join(dir, "with space")); got != want {
				t.Errorf("Cwd() after cd into a name with a space = %q, want %q", got, want)
			}
			// A cd in a subshell does not.
			runBash(t, b, "(cd /)", 0)
			if got, want := b.Cwd(), realDir(t, filepath.Join(dir, "with space")); got != want {
				t.Errorf("Cwd() after (cd /) = %q, want %q", got, want)
			}
		})
	}
}

func TestBashDeletedCwdFallsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := NewBash(BashConfig{Dir: dir})
	runBash(t, b, "mkdir gone && cd gone", 0)
	gone := b.Cwd()
	if filepath.Base(gone) != "gone" {
		t.Fatalf("Cwd() = %q, want the gone directory", gone)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	res := runBash(t, b, "pwd", 0)
	text := res.Text()
	if res.IsError {
		t.Errorf("is_error set: %q", text)
	}
	if !strings.Contains(text, gone) || !strings.Contains(text, "no longer exists") {
		t.Errorf("result %q does not say that %s no longer exists", text, gone)
	}
	if !strings.HasSuffix(text, "\n"+realDir(t, dir)) {
		t.Errorf("result %q: the command did not run in %s", text, dir)
	}
	if got := runBash(t, b, "pwd", 0).Text(); got != realDir(t, dir) {
		t.Errorf("next call: %q, want %q without a note", got, realDir(t, dir))
	}
}

func TestBashEnv(t *testing.T) {
	t.Parallel()
	b := NewBash(BashConfig{Dir: t.TempDir(), Env: []string{"OURO_TEST_VAR=from config"}})
	if got := runBash(t, b, `echo "$OURO_TEST_VAR" "${PATH:+path set}"`, 0).Text(); got != "from config path set" {
		t.Errorf("got %q", got)
	}
}

func TestBashInvalidInput(t *testing.T) {
	t.Parallel()
	b := NewBash(BashConfig{Dir: t.TempDir()})
	cases := []struct{ input, want string }{
		{`{}`, "command is required"},
		{`{"command": "   "}`, "command is required"},
		{`{"command": 1}`, "command must be a string, got number"},
		{`{"command": "true", "timeout": 0}`, "timeout must be a positive"},
		{`{"command": "true", "timeout": -5}`, "timeout must be a positive"},
		{`{"command": "true", "timeout": "5"}`, "timeout must be a number, got string"},
		{`{"command": "true", "run_in_background": true}`, `run_in_background is not available in this session`},
		{`"echo hi"`, "must be a JSON object, got string"},
	}
	for _, tc := range cases {
		_, err := b.Run(context.Background(), tool.ExecInput(json.RawMessage(tc.input)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.input, err, tc.want)
		}
	}
}

// pidFrom finds "key=<pid>" in the output.
func pidFrom(t *testing.T, out, key string) int {
	t.Helper()
	m := regexp.MustCompile(key + `=(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s=<pid> in output %q", key, out)
	}
	pid, _ := strconv.Atoi(m[1])
	return pid
}

// processGone reports whether pid has exited; a zombie waiting for its new parent (init)
// to reap it counts as gone.
func processGone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return runtime.GOOS == "linux" // no entry: gone
	}
	// The state follows the parenthesised command name: "pid (comm) S ...".
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// assertGone fails unless pid exits soon. The bound is generous: this checks that the
// process was killed at all, not how fast.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBashTimeoutKillsGroup(t *testing.T) {
	cases := []struct {
		name, cmd string
		grace     time.Duration
	}{
		{"terminates", "sleep 60 & echo bg=$!; echo partial; sleep 60", 0},
		// Processes that ignore SIGTERM get SIGKILL after the grace period.
		{"kills what ignores SIGTERM", "trap '' TERM; sleep 60 & echo bg=$!; echo partial; sleep 60; echo AFTER-SLEEP", 200 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := NewBash(BashConfig{Dir: t.TempDir(), KillGrace: tc.grace})
			res := runBash(t, b, tc.cmd, 3000)
			text := res.Text()
			if !res.IsError {
				t.Errorf("is_error not set: %q", text)
			}
			if !strings.Contains(text, "timed out after 3s") {
				t.Errorf("result does not say it timed out after 3s: %q", text)
			}
			if !strings.Contains(text, "partial") || strings.Contains(text, "AFTER-SLEEP") {
				t.Errorf("result does not carry the output so far: %q", text)
			}
			assertGone(t, pidFrom(t, text, "bg"))
		})
	}
}

func TestBashTimeoutLimits(t *testing.T) {
	cases := []struct {
		name    string
		cfg     BashConfig
		timeout float64
		want    string
	}{
		{"default timeout", BashConfig{DefaultTimeout: time.Second}, 0, "timed out after 1s"},
		{"capped at MaxTimeout", BashConfig{MaxTimeout: time.Second}, 600_000, "timed out after 1s"},
		{"huge timeout is capped", BashConfig{MaxTimeout: time.Second}, 1e300, "timed out after 1s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.cfg.Dir = t.TempDir()
			res := runBash(t, NewBash(tc.cfg), "sleep 30", tc.timeout)
			if !res.IsError || !strings.Contains(res.Text(), tc.want) {
				t.Errorf("got %q, want %q", res.Text(), tc.want)
			}
		})
	}
}

func TestBashCancelKillsAndReturnsCtxErr(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := NewBash(BashConfig{Dir: dir})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res tool.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := b.Run(ctx, tool.ExecInput(bashCall(t, "sleep 60 & echo $! > bg.pid; wait", 0)))
		done <- outcome{res, err}
	}()

	pidFile := filepath.Join(dir, "bg.pid")
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; {
		if data, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	out := <-done
	if !errors.Is(out.err, context.Canceled) {
		t.Fatalf("err = %v, want it to wrap context.Canceled", out.err)
	}
	assertGone(t, pid)

	// A context that is already done runs nothing.
	if _, err := b.Run(ctx, tool.ExecInput(bashCall(t, "touch never", 0))); !errors.Is(err, context.Canceled) || fileExists(filepath.Join(dir, "never")) {
		t.Errorf("with a cancelled context: err = %v, command ran: %v", err, fileExists(filepath.Join(dir, "never")))
	}

	// The registry turns the cancellation into an interrupted result.
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() {
		defer cancel2()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
			if fileExists(filepath.Join(dir, "started")) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	res := tool.NewRegistry(b).Run(ctx2, tool.Call{ID: "1", Name: "Bash", Input: bashCall(t, "touch started; sleep 60", 0)})
	if !res.IsError || !strings.Contains(res.Text(), "Interrupted") {
		t.Errorf("registry result %q, want an interrupted result", res.Text())
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func TestBashBackgroundChildDoesNotHang(t *testing.T) {
	t.Parallel()
	b := NewBash(BashConfig{Dir: t.TempDir()})
	// The background sleep would keep the output pipe open after the shell exits; the
	// call must return at once, and take the sleep with it.
	start := time.Now()
	res := runBash(t, b, "sleep 300 & echo bg=$!; echo done", 0)
	pid := pidFrom(t, res.Text(), "bg")
	defer syscall.Kill(pid, syscall.SIGKILL)
	if res.IsError || !strings.Contains(res.Text(), "done") {
		t.Errorf("got %q (is_error %v), want the output", res.Text(), res.IsError)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %s", d)
	}
	assertGone(t, pid)
}

func TestBashHugeOutputIsBounded(t *testing.T) {
	// Not parallel: it measures the process's allocations.
	b := NewBash(BashConfig{Dir: t.TempDir()})
	const size = 50_000_000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := runBash(t, b, "yes | head -c "+strconv.Itoa(size), 0)
	runtime.ReadMemStats(&after)

	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/5 {
		t.Errorf("allocated %d bytes for %d bytes of output; memory is not bounded", alloc, size)
	}
	text := res.Text()
	if res.IsError {
		t.Errorf("is_error set")
	}
	if n := len([]rune(text)); n > defaultBashMaxOutput+500 {
		t.Errorf("result has %d characters, want about %d", n, defaultBashMaxOutput)
	}
	m := omittedRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no omission line in the result's %d characters", len(text))
	}
	omitted, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	lines, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
	// The head and tail shown are whole "y" lines: everything else is omitted.
	if want := size - defaultBashMaxOutput; omitted < want || omitted > want+4 {
		t.Errorf("omitted %d characters, want about %d", omitted, want)
	}
	if omitted != 2*lines {
		t.Errorf("omitted %d characters in %d lines; every line is 2 characters", omitted, lines)
	}
	head, tail, _ := strings.Cut(text, m[0])
	if !strings.HasPrefix(head, "y\ny\n") || !strings.HasSuffix(tail, "y\ny") {
		t.Errorf("head or tail are not the output's beginning and end")
	}
}

func BenchmarkBashEcho(b *testing.B) {
	bash := NewBash(BashConfig{Dir: b.TempDir()})
	in := bashCall(b, "echo hello", 0)
	ctx := context.Background()
	for b.Loop() {
		res, err := bash.Run(ctx, tool.ExecInput(in))
		if err != nil || res.Text() != "hello" {
			b.Fatalf("got %q, %v", res.Text(), err)
		}
	}
}

// A huge output is shortened by Bash before the output budget sees it; when the budget
// then saves the result to a file, the model must not be told that file is the full
// output: it holds what Bash returned, and the note says how much Bash left out.
func TestBashSpilledHugeOutputIsNotCalledFull(t *testing.T) {
	b := NewBash(BashConfig{Dir: t.TempDir(), MaxOutput: 40_000})
	dir := filepath.Join(t.TempDir(), "tool-results")
	r := tool.NewRegistry(b)
	r.SetOptions(tool.Options{OutputBudget: 10_000, SpillDir: dir})
	const size = 2_000_000
	res := r.Run(context.Background(), tool.Call{ID: "toolu_big", Name: "Bash", Input: bashCall(t, "yes | head -c "+strconv.Itoa(size), 0)})
	text := res.Text()
	if strings.Contains(text, "full output") {
		t.Fatalf("the note calls the file the full output:\n%s", clip(text))
	}
	path, full := tool.SpillFile(text)
	if path == "" || full {
		t.Fatalf("SpillFile = %q, %v; want the file, not full:\n%s", path, full, clip(text))
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := omittedRE.FindStringSubmatch(string(saved))
	if m == nil {
		t.Fatalf("the file has no omission line of its own (%d bytes)", len(saved))
	}
	// The budget note states the number Bash's own line states.
	if !strings.Contains(text, m[1]+" characters of its output were already left out by the tool") {
		t.Errorf("the note does not say the file lacks the %s characters Bash left out:\n%s", m[1], clip(text))
	}
	if n := len(saved); n >= size || n < 40_000 {
		t.Errorf("the file has %d bytes; want Bash's 40,000 characters and its line", n)
	}

	// An output Bash kept whole is still called the full output.
	res = r.Run(context.Background(), tool.Call{ID: "toolu_mid", Name: "Bash", Input: bashCall(t, "yes | head -c 30000", 0)})
	if path, full := tool.SpillFile(res.Text()); path == "" || !full || !strings.Contains(res.Text(), "the full output is in") {
		t.Fatalf("SpillFile = %q, %v for an output Bash kept whole:\n%s", path, full, clip(res.Text()))
	}
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:300] + "\n…\n" + s[len(s)-300:]
	}
	return s
}
