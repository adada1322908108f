//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// Issue 12, item 10: one malformed tool call must not end a live run. The model's broken
// input is answered with an error and enters the history as {}, so the next request is
// accepted by the (fake) API and stream-json can still write the message.
func TestMalformedToolInputDoesNotEndTheRun(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Bash", PartialInput: `{"command": "echo hi`}}},
		scripted.Turn{ExpectContains: "is not valid JSON", Text: "the call was broken; giving up politely"},
	)
	out, stderr, code := e.run("", "-p", "run it", "--output-format", "stream-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	lines := parseLines(t, out)
	last := lines[len(lines)-1]
	if last["subtype"] != "success" || !strings.Contains(last["result"].(string), "giving up politely") {
		t.Fatalf("result line: %v", last)
	}
	if strings.Contains(stderr, "MarshalJSON") {
		t.Fatalf("stream-json could not write a message:\n%s", stderr)
	}
}

// Issue 12, item 11: two processes continuing one session must not interleave in its
// transcript. The second `ouro -c` forks a new session, says so, and the first session
// keeps its real tool results when resumed later.
func TestTwoProcessesContinuingOneSession(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "first done"},
		scripted.Turn{ToolCalls: bash("sleep 4; echo slow-done")},
		scripted.Turn{ExpectContains: "other", Text: "other done"},
		scripted.Turn{ExpectContains: "slow-done", Text: "long done"},
		scripted.Turn{ExpectContains: "check", Text: "checked"},
	)
	if out, errOut, code := e.run("", "-p", "first"); code != 0 {
		t.Fatalf("first run: exit %d %s %s", code, out, errOut)
	}
	sessions, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "sessions", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("sessions: %v", sessions)
	}
	first := strings.TrimSuffix(filepath.Base(sessions[0]), ".jsonl")

	long := e.cmd("-c", "-p", "long", "--allowedTools", "Bash")
	var longErr bytes.Buffer
	long.Stderr = &longErr
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !transcriptHas(sessions[0], "sleep 4") {
		if time.Now().After(deadline) {
			long.Process.Kill()
			t.Fatalf("the long run never started its command\n%s", longErr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	out, errOut, code := e.run("", "-c", "-p", "other")
	if code != 0 || out != "other done\n" || !strings.Contains(errOut, "session "+first+" is in use by another ouro process; continuing in a new session") {
		long.Process.Kill()
		t.Fatalf("second writer: exit %d, out %q\n%s", code, out, errOut)
	}
	if err := long.Wait(); err != nil {
		t.Fatalf("long run: %v\n%s", err, longErr.String())
	}
	if transcriptHas(sessions[0], "other") {
		t.Fatal("the second process wrote into the first session's transcript")
	}
	if out, errOut, code := e.run("", "--resume", first, "-p", "check"); code != 0 || out != "checked\n" {
		t.Fatalf("resume: exit %d, out %q\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if err := llm.ValidateConversation(msgs); err != nil {
		t.Fatal(err)
	}
	var real bool
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult && strings.Contains(b.ResultText(), "slow-done") && !b.IsError {
				real = true
			}
		}
	}
	if !real {
		t.Fatalf("the resumed session lost its real tool result: %s", llm.RenderMessages(msgs, 0))
	}
	forks, _ := filepath.Glob(filepath.Join(filepath.Dir(sessions[0]), "*.jsonl"))
	if len(forks) != 2 {
		t.Fatalf("want the original and one fork, got %v", forks)
	}
}

// Issue 12, item 6: what the agent writes must not grant it power later. A skill the
// agent wrote (in an earlier session) asking for allowed-tools grants nothing headless,
// with a warning; the same skill written by the user grants; in the REPL the user is asked
// once, and an approval is remembered.
func TestAgentWrittenSkillGrantsNothingUntilApproved(t *testing.T) {
	skillText := "---\nname: deploy\ndescription: Deploy the app\nallowed-tools: Bash(touch *)\n---\nRun touch deployed.txt.\n"
	invoke, _ := json.Marshal(map[string]string{"skill": "deploy"})
	touch := bash("touch deployed.txt")[0]
	useSkill := func(e *env, expect string) {
		e.fake(
			scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: invoke}}},
			scripted.Turn{ToolCalls: []scripted.ToolCall{touch}},
			scripted.Turn{ExpectContains: expect, Text: "done"},
		)
	}

	// The agent writes the skill in a first session.
	e := newEnv(t)
	write, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, ".claude", "skills", "deploy", "SKILL.md"), "content": skillText})
	e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: write}}}, scripted.Turn{Text: "skill written"})
	if out, errOut, code := e.run("", "-p", "write a deploy skill", "--allowedTools", "Write"); code != 0 {
		t.Fatalf("writing the skill: exit %d %s %s", code, out, errOut)
	}
	// Headless, the next session ignores its grant and says why.
	useSkill(e, "Permission denied")
	out, errOut, code := e.run("", "-p", "deploy")
	if code != 0 {
		t.Fatalf("exit %d %s %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "allowed-tools Bash(touch *) ignored: it was written or changed by ouro's tools") {
		t.Errorf("no warning about the withheld grant:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "deployed.txt")); err == nil {
		t.Fatal("the agent-written skill granted Bash(touch *)")
	}
	// In the REPL the user is asked; yes grants, and is remembered for the next session.
	useSkill(e, "(no output)")
	out, errOut, code = e.run("deploy\ny\n/exit\n")
	if code != 0 || !strings.Contains(out, "Review it, then allow it to grant this from now on?") {
		t.Fatalf("REPL: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "deployed.txt")); err != nil {
		t.Fatalf("the approved skill did not grant: %v\n%s", err, out)
	}
	os.Remove(filepath.Join(e.dir, "deployed.txt"))
	useSkill(e, "(no output)")
	if out, errOut, code := e.run("", "-p", "deploy"); code != 0 || strings.Contains(errOut, "ignored") {
		t.Fatalf("after approval: exit %d %s %s", code, out, errOut)
	}

	// The user's own skill grants from the start.
	u := newEnv(t)
	writeFile(t, filepath.Join(u.dir, ".claude", "skills", "deploy", "SKILL.md"), skillText)
	useSkill(u, "(no output)")
	if out, errOut, code := u.run("", "-p", "deploy"); code != 0 || strings.Contains(errOut, "ignored") {
		t.Fatalf("the user's skill: exit %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(u.dir, "deployed.txt")); err != nil {
		t.Fatalf("the user's own skill did not grant: %v", err)
	}
}

// Issue 12, item 15: a text answer that claims work a denied call never did is followed,
// on stderr, by the denials and the flag that would allow them.
func TestHeadlessTextShowsDenials(t *testing.T) {
	e := newEnv(t)
	write, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, "calc.py"), "content": "x = 1\n"})
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: write}}},
		scripted.Turn{Text: "I fixed calc.py."},
	)
	out, errOut, code := e.run("", "-p", "fix it")
	if code != 0 || out != "I fixed calc.py.\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "permission was denied for 1 call(s)") || !strings.Contains(errOut, "- Write:") || !strings.Contains(errOut, "--allowedTools") {
		t.Errorf("stderr does not report the denial and how to allow it:\n%s", errOut)
	}
}

// Issue 12, item 16: system/init reports the mode in force, from settings or flags.
func TestInitReportsTheModeInForce(t *testing.T) {
	e := newEnv(t)
	// The person's own file: a project's may not choose acceptEdits.
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"permissions": {"defaultMode": "acceptEdits"}}`)
	for _, tc := range []struct {
		flags []string
		want  string
	}{{nil, "acceptEdits"}, {[]string{"--permission-mode", "plan"}, "plan"}} {
		e.fake(scripted.Turn{Text: "ok"})
		out, errOut, code := e.run("", append([]string{"-p", "hi", "--output-format", "stream-json"}, tc.flags...)...)
		if code != 0 {
			t.Fatalf("exit %d %s %s", code, out, errOut)
		}
		if mode := parseLines(t, out)[0]["permissionMode"]; mode != tc.want {
			t.Errorf("flags %v: init permissionMode = %v, want %s", tc.flags, mode, tc.want)
		}
	}
}

// Issue 12, item 18: model names. "scripted" alone and unknown prefixes are refused with
// the forms that exist; a name the model table lacks runs with a one-line warning; a call
// that keeps failing says what it waits for, from the second retry on.
func TestModelSelection(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "never"})
	for _, m := range []string{"scripted", "bedrock:claude"} {
		_, errOut, code := e.run("", "-p", "hi", "--model", m)
		if code == 0 || !strings.Contains(errOut, "openai:NAME and scripted:FILE") {
			t.Errorf("--model %s: exit %d\n%s", m, code, errOut)
		}
	}

	e.fake(scripted.Turn{Text: "fine"})
	out, errOut, code := e.run("", "-p", "hi", "--model", "claude-nova-9")
	if code != 0 || out != "fine\n" || strings.Count(errOut, `model "claude-nova-9" is not in ouro's model table`) != 1 {
		t.Errorf("unknown model: exit %d %q\n%s", code, out, errOut)
	}

	e.fake(
		scripted.Turn{Fault: &scripted.Fault{Status: 529, RetryAfter: 0.05}, Times: 3},
		scripted.Turn{Text: "back"},
	)
	out, errOut, code = e.run("", "-p", "hi")
	if code != 0 || out != "back\n" {
		t.Fatalf("retries: exit %d %q\n%s", code, out, errOut)
	}
	if n := strings.Count(errOut, "before attempt"); n != 2 || !strings.Contains(errOut, "before attempt 3 of") {
		t.Errorf("want a waiting line for attempts 3 and 4 only, got %d:\n%s", n, errOut)
	}
}

// Issue 12, item 19: a rule naming no tool warns with the name it likely meant; a bare -r
// resumes the most recent session instead of swallowing the next flag; `ouro -p fix`
// runs the prompt "fix", not the subcommand.
func TestCommandLineTypos(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "first"})
	out, errOut, code := e.run("", "-p", "hello", "--disallowedTools", "Bassh")
	if code != 0 || !strings.Contains(errOut, `rule "Bassh" (--disallowedTools) names no tool, so it matches nothing; did you mean "Bash"?`) {
		t.Errorf("typo: exit %d %q\n%s", code, out, errOut)
	}
	e.fake(scripted.Turn{ExpectContains: "again", Text: "resumed"})
	out, errOut, code = e.run("", "-r", "-p", "again")
	if code != 0 || out != "resumed\n" {
		t.Errorf("-r alone: exit %d %q\n%s", code, out, errOut)
	}
	srv := e.fake(scripted.Turn{ExpectContains: "fix", Text: "fixed"})
	out, errOut, code = e.run("", "-p", "fix", "--output-format", "text")
	if code != 0 || out != "fixed\n" || len(srv.Requests()) != 1 {
		t.Errorf("-p fix: exit %d %q\n%s", code, out, errOut)
	}
}

// Issue 12, item 21: approvals saved "always" go to .ouro/settings.local.json, which git
// then ignores, so one person's approvals are not committed for everyone.
func TestLocalSettingsAreIgnoredByGit(t *testing.T) {
	e := newEnv(t)
	if out, err := exec.Command("git", "-C", e.dir, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	e.fake(scripted.Turn{ToolCalls: bash("touch made.txt")}, scripted.Turn{Text: "made"})
	out, errOut, code := e.run("make it\na\n/exit\n")
	if code != 0 || !strings.Contains(out, "made") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	local := filepath.Join(e.dir, ".ouro", "settings.local.json")
	if data, err := os.ReadFile(local); err != nil || !strings.Contains(string(data), "Bash(touch *)") {
		t.Fatalf("the always-answer was not saved: %v %s", err, data)
	}
	c := exec.Command("git", "-C", e.dir, "check-ignore", "-q", local)
	if err := c.Run(); err != nil {
		t.Errorf("git does not ignore %s: %v", local, err)
	}
}

// Issue 12, item 8 (same class as git show HEAD:secret): a git command printing a whole
// commit or diff (git show <sha>, git log -p) would show a denied file that is tracked;
// with a Read deny rule in force it is denied headless, and the content never reaches
// the model.
func TestGitHistoryDoesNotLeakADeniedFile(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, "secrets", "key"), "s3cret-value\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", e.dir}, args...)...).CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
	for _, line := range []string{"git show HEAD", "git log -p -1"} {
		srv := e.fake(scripted.Turn{ToolCalls: bash(line)}, scripted.Turn{Text: "done"})
		out, errOut, code := e.run("", "-p", "look", "--output-format", "json", "--disallowedTools", "Read(./secrets/**)")
		if code != 0 {
			t.Fatalf("%s: exit %d %s %s", line, code, out, errOut)
		}
		if !strings.Contains(out, `"permission_denials": [`) || !strings.Contains(out, "Read(./secrets/**)") {
			t.Errorf("%s was not denied:\n%s", line, out)
		}
		for _, r := range srv.Requests() {
			if strings.Contains(llm.RenderMessages(r.Messages, 0), "s3cret-value") {
				t.Errorf("%s: the denied file reached the model", line)
			}
		}
	}
}

// Issue 12, item 3 (the submodule route): a sandboxed command that makes a git dir of its
// own and registers it as a submodule in the index (so the user's next git status would
// descend into it and run its core.fsmonitor) has the index put back, and is told why;
// an existing submodule's .git cannot be pointed elsewhere.
func TestSandboxedCommandCannotAddASubmodule(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	requireGit(t)
	e := newEnv(t)
	gitIn(t, e.dir, "init", "-q")
	writeFile(t, filepath.Join(e.dir, "a.txt"), "a\n")
	gitIn(t, e.dir, "add", "a.txt")
	gitIn(t, e.dir, "commit", "-qm", "one")
	os.MkdirAll(filepath.Join(e.dir, "lib"), 0o755)
	pwned := filepath.Join(e.dir, "pwned")
	gitEnv := "GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 "
	attack := gitEnv + `git init -q lib/evil && printf '[core]\n\tfsmonitor = touch ` + pwned + `; false\n' >> lib/evil/.git/config && ` +
		gitEnv + `git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),lib/evil && echo registered`
	e.fake(
		scripted.Turn{ToolCalls: bash(attack)},
		scripted.Turn{ExpectContains: "added submodules to the git index", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "work", "--permission-mode", "bypassPermissions")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	ls, _ := exec.Command("git", "-C", e.dir, "ls-files", "-s").Output()
	if strings.Contains(string(ls), "160000") {
		t.Fatalf("the submodule entry stayed in the index:\n%s", ls)
	}
	// The user's own git, outside the sandbox, runs nothing the command planted.
	gitIn(t, e.dir, "status", "--short")
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("git status ran the planted fsmonitor")
	}
}

// Issue 12, item 6 against kill -9: a skill the agent writes in a turn that never ends
// (ouro is SIGKILLed mid-command) still grants nothing in the next session: the killed
// session's open snapshot is found and its change recorded.
func TestSkillWrittenBeforeKillGrantsNothing(t *testing.T) {
	e := newEnv(t)
	os.MkdirAll(filepath.Join(e.dir, ".claude", "skills"), 0o755) // the user's folder
	skill := `mkdir -p .claude/skills/deploy && printf -- '---\nname: deploy\ndescription: Deploy\nallowed-tools: Bash(touch *)\n---\nRun touch.\n' > .claude/skills/deploy/SKILL.md && echo written && sleep 60`
	e.fake(scripted.Turn{ToolCalls: bash(skill)}, scripted.Turn{Text: "never"})
	c := e.cmd("-p", "write a skill", "--permission-mode", "bypassPermissions")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(e.dir, ".claude", "skills", "deploy", "SKILL.md")
	if !waitFor(20*time.Second, func() bool { _, err := os.Stat(path); return err == nil }) {
		c.Process.Kill()
		t.Fatal("the skill was never written")
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()

	invoke, _ := json.Marshal(map[string]string{"skill": "deploy"})
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: invoke}}},
		scripted.Turn{ToolCalls: bash("touch deployed.txt")},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "deploy")
	if code != 0 {
		t.Fatalf("exit %d %s %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "allowed-tools Bash(touch *) ignored") {
		t.Errorf("the killed session's skill granted its tools:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "deployed.txt")); err == nil {
		t.Error("the grant took effect")
	}
}
