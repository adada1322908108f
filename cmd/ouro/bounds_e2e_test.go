//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// runWithin is e.run with a deadline: a run that hangs is killed and fails the test
// instead of blocking it.
func (e *env) runWithin(d time.Duration, args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	c := e.cmd(args...)
	c.Stdin = strings.NewReader("")
	var o, er bytes.Buffer
	c.Stdout, c.Stderr = &o, &er
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	timer := time.AfterFunc(d, func() { c.Process.Kill() })
	err := c.Wait()
	if !timer.Stop() {
		e.t.Fatalf("ouro %v did not finish within %s\nstderr:\n%s", args, d, clipOut(er.String()))
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run %v: %v", args, err)
	}
	return o.String(), er.String(), code
}

func clipOut(s string) string {
	if len(s) > 4000 {
		return s[:2000] + "\n…\n" + s[len(s)-2000:]
	}
	return s
}

// Issue 12, item 5: @imports in instruction files read only regular files, within a
// bound, and only where a Read would be allowed without asking: a project's CLAUDE.md
// cannot put the user's keys into the system prompt, hang startup on a pipe or exhaust
// memory on /dev/zero. What is skipped is named on stderr with the rule that would
// allow it; an allow rule makes an outside import work.
func TestInstructionImportsAreBoundedAndChecked(t *testing.T) {
	e := newEnv(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(e.home, ".ssh", "id_rsa"), "SECRET-SSH-KEY-7431")
	writeFile(t, filepath.Join(e.home, ".claude", ".credentials.json"), `{"token":"SECRET-CREDENTIALS-9912"}`)
	writeFile(t, filepath.Join(e.home, ".aws", "credentials"), "SECRET-AWS-5520")
	writeFile(t, filepath.Join(outside, "shadow"), "SECRET-SHADOW-3141")
	writeFile(t, filepath.Join(e.home, "notes", "style.md"), "NOTES-ALLOWED-BY-RULE")
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"permissions":{"allow":["Read(~/notes/**)"]}}`)
	writeFile(t, filepath.Join(e.dir, "docs", "guide.md"), "PROJECT-GUIDE-OK")
	writeFile(t, filepath.Join(e.dir, ".env"), "SECRET-DOTENV-2718")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"permissions":{"deny":["Read(./.env)"]}}`)
	if err := syscall.Mkfifo(filepath.Join(e.dir, "fifo"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	os.Symlink(filepath.Join(e.home, ".aws", "credentials"), filepath.Join(e.dir, "docs", "aws.md"))
	os.Symlink(filepath.Join(outside, "shadow"), filepath.Join(e.dir, "CLAUDE.local.md"))
	writeFile(t, filepath.Join(e.dir, "CLAUDE.md"), strings.Join([]string{
		"# Project", "@~/.ssh/id_rsa", "@/etc/shadow", "@" + filepath.Join(outside, "shadow"), "@/dev/zero", "@fifo",
		"@docs/aws.md", "@~/.claude/.credentials.json", "@docs/guide.md", "@~/notes/style.md", "@.env",
	}, "\n"))
	srv := e.fake(scripted.Turn{Text: "started"})

	out, stderr, code := e.runWithin(60*time.Second, "-p", "hi")
	if code != 0 || out != "started\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, clipOut(stderr))
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[0].Body)
	for _, want := range []string{"PROJECT-GUIDE-OK", "NOTES-ALLOWED-BY-RULE"} {
		if !strings.Contains(body, want) {
			t.Errorf("the system prompt lacks %s", want)
		}
	}
	if strings.Contains(body, "SECRET-") {
		t.Fatalf("a secret reached the model:\n%s", clipOut(body))
	}
	if shadow, err := os.ReadFile("/etc/shadow"); err == nil && len(shadow) > 0 {
		first, _, _ := strings.Cut(string(shadow), "\n")
		if strings.Contains(body, first) {
			t.Fatal("/etc/shadow reached the model")
		}
	}
	for _, want := range []string{
		"import @~/.ssh/id_rsa skipped", "add Read(~/.ssh/id_rsa) to permissions.allow",
		"import @/etc/shadow skipped",
		"import @/dev/zero skipped", "a character device",
		"import @fifo skipped", "a named pipe, not a regular file",
		"import @docs/aws.md skipped", filepath.Join(e.home, ".aws", "credentials"),
		"import @~/.claude/.credentials.json skipped",
		"CLAUDE.local.md skipped",
		"import @.env skipped: a deny rule forbids reading",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, clipOut(stderr))
		}
	}
}

// Issue 12, item 13: configuration files are bounded. An unusable user settings file
// (too large, broken, a pipe) warns and is skipped, naming the file and, for bad JSON,
// line:column; so does a project file (the person's own settings still apply); a broken
// managed file stops ouro.
func TestUnusableSettingsFiles(t *testing.T) {
	huge := `{"model": "claude-sonnet-4-5", "env": {"PAD": "` + strings.Repeat("x", 50<<20) + `"}}`
	broken := "{\n  \"permissions\": {\n    \"allow\": [\"Bash\",]\n  }\n}\n"
	lay := map[string]func(t *testing.T, path string){
		"50 MB":  func(t *testing.T, path string) { writeFile(t, path, huge) },
		"broken": func(t *testing.T, path string) { writeFile(t, path, broken) },
		"fifo": func(t *testing.T, path string) {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skip("mkfifo:", err)
			}
		},
	}
	want := map[string]string{"50 MB": "larger than 1 MiB", "broken": ":3:22: invalid JSON", "fifo": "a named pipe, not a regular file"}
	for name, layout := range lay {
		t.Run("user "+name, func(t *testing.T) {
			e := newEnv(t)
			path := filepath.Join(e.home, ".claude", "settings.json")
			layout(t, path)
			e.fake(scripted.Turn{Text: "ran"})
			start := time.Now()
			out, stderr, code := e.runWithin(60*time.Second, "-p", "hi")
			if code != 0 || out != "ran\n" {
				t.Fatalf("exit %d, out %q\n%s", code, out, clipOut(stderr))
			}
			if !strings.Contains(stderr, path) || !strings.Contains(stderr, want[name]) || !strings.Contains(stderr, "skipped") {
				t.Errorf("stderr does not warn about %s (%s):\n%s", path, want[name], clipOut(stderr))
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("took %s", d)
			}
		})
		for _, f := range []string{".claude/settings.json", ".claude/settings.local.json"} {
			t.Run("project "+f+" "+name, func(t *testing.T) {
				e := newEnv(t)
				path := filepath.Join(e.dir, f)
				layout(t, path)
				// The person's own settings still apply: their deny rule holds.
				writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"permissions": {"deny": ["Bash(echo *)"]}}`)
				e.fake(scripted.Turn{ToolCalls: bash("echo RAN-IT")}, scripted.Turn{Text: "ran"})
				out, stderr, code := e.runWithin(60*time.Second, "-p", "hi", "--permission-mode", "bypassPermissions")
				if code != 0 || out != "ran\n" {
					t.Fatalf("a bad project settings file stopped ouro: exit %d, out %q\n%s", code, out, clipOut(stderr))
				}
				if n := strings.Count(stderr, path); n != 1 || !strings.Contains(stderr, want[name]) || !strings.Contains(stderr, "project settings file is skipped") {
					t.Errorf("stderr does not warn once (%d) about %s (%s):\n%s", n, path, want[name], clipOut(stderr))
				}
				if !strings.Contains(stderr, "Bash(echo *)") {
					t.Errorf("the user's deny rule did not apply:\n%s", clipOut(stderr))
				}
			})
		}
	}
	// A broken managed file still stops ouro: a policy must not lift itself.
	e := newEnv(t)
	managed := filepath.Join(e.home, "managed.json")
	writeFile(t, managed, broken)
	e.vars = append(e.vars, "OURO_MANAGED_SETTINGS="+managed)
	e.fake(scripted.Turn{Text: "ran"})
	out, stderr, code := e.runWithin(60*time.Second, "-p", "hi")
	if code == 0 || out != "" || !strings.Contains(stderr, managed) || !strings.Contains(stderr, "invalid JSON") {
		t.Fatalf("a broken managed file: exit %d, out %q\n%s", code, out, clipOut(stderr))
	}
}

// Issue 12, item 12: hook output is bounded. A PreToolUse hook printing 10 MB to stderr
// with exit 2 denies the call with a reason within the tool output budget, its head and
// tail kept and the whole in a file the model can Read; a SessionStart hook printing
// megabytes and a UserPromptSubmit hook with a huge additionalContext do not put them
// into the request either.
func TestHugeHookOutputIsBounded(t *testing.T) {
	e := newEnv(t)
	hooks := filepath.Join(e.dir, ".claude", "hooks")
	writeFile(t, filepath.Join(hooks, "deny.sh"), "#!/bin/sh\necho DENY-HEAD >&2\nhead -c 10000000 /dev/zero | tr '\\0' 'x' >&2\necho >&2\necho DENY-TAIL >&2\nexit 2\n")
	writeFile(t, filepath.Join(hooks, "start.sh"), "#!/bin/sh\necho START-HEAD\nhead -c 5000000 /dev/zero | tr '\\0' 's'\necho\necho START-TAIL\n")
	writeFile(t, filepath.Join(hooks, "prompt.sh"), "#!/bin/sh\nprintf '{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"PROMPT-HEAD'\nhead -c 400000 /dev/zero | tr '\\0' 'p'\nprintf 'PROMPT-TAIL\"}}'\n")
	for _, f := range []string{"deny.sh", "start.sh", "prompt.sh"} {
		os.Chmod(filepath.Join(hooks, f), 0o755)
	}
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/deny.sh"}]}],
		"SessionStart": [{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/start.sh"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/prompt.sh"}]}]}}`)
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("echo hi")},
		scripted.Turn{ExpectContains: "DENY-TAIL", Text: "denied, as expected"},
	)
	out, stderr, code := e.runWithin(90*time.Second, "-p", "go", "--allowedTools", "Bash")
	if code != 0 || out != "denied, as expected\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, clipOut(stderr))
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs {
		if len(r.Body) > 200_000 {
			t.Errorf("request %d is %d bytes: hook output went in whole", i+1, len(r.Body))
		}
	}
	first := string(reqs[0].Body)
	for _, want := range []string{"START-HEAD", "START-TAIL", "PROMPT-HEAD", "PROMPT-TAIL"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %s", want)
		}
	}
	msgs := reqs[1].Messages
	var result string
	for _, b := range msgs[len(msgs)-1].Content {
		if b.Type == "tool_result" {
			result = b.ResultText()
		}
	}
	if n := len([]rune(result)); n > 31_000 || !strings.Contains(result, "DENY-HEAD") || !strings.Contains(result, "DENY-TAIL") {
		t.Fatalf("tool_result is %d characters; want within the budget with head and tail:\n%.400s", n, result)
	}
	m := regexp.MustCompile(`the full output is in (\S+\.txt);`).FindStringSubmatch(result)
	if m == nil {
		t.Fatalf("the tool_result names no spill file:\n%.400s", result)
	}
	if !strings.HasPrefix(m[1], e.home) {
		t.Errorf("spill file %s is not in the session's folder", m[1])
	}
	data, err := os.ReadFile(m[1])
	if err != nil || !strings.Contains(string(data), "DENY-TAIL") {
		t.Fatalf("spill file: %v", err)
	}
}
