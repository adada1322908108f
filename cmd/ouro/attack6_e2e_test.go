//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// Red-team pass over the features of the last two sessions: each test is an attack
// tried through the real binary, and what it must not achieve.

// In a worktree, a sandboxed command cannot add a branch name beside the user's (a new
// name in the shared refs/heads), swap an object the user sees with refs/replace, or
// push onto the user's stash ref: only refs/heads/ouro/ is writable. Its own commits and
// a new branch under ouro/ still work.
func TestAttackWorktreeCannotAddSharedRefs(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	main := strings.TrimSpace(wtGit(t, e.dir, "rev-parse", "refs/heads/main"))
	evil := "$(git -c user.name=a -c user.email=a@example.com commit-tree -m evil HEAD^{tree})"
	attacks := []string{
		"git branch evil 2>&1",
		"git update-ref refs/heads/feature/x " + evil + " 2>&1",
		"git update-ref refs/replace/" + main + " " + evil + " 2>&1",
		"git update-ref refs/stash " + evil + " 2>&1",
		"git update-ref refs/notes/commits " + evil + " 2>&1",
	}
	turns := []scripted.Turn{{ToolCalls: call("EnterWorktree", map[string]string{"name": "atk"})},
		{ToolCalls: bash("echo z > z.txt && git add z.txt && " + commitAs + " 'own commit' && echo z2 >> z.txt && " + commitAs + " 'again' -a && git branch ouro/extra && echo COMMITTED")}}
	for _, a := range attacks {
		turns = append(turns, scripted.Turn{ToolCalls: bash(a)})
	}
	turns = append(turns, scripted.Turn{Text: "done"})
	srv := e.fake(turns...)
	out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if strings.Contains(stderr, "sandbox") && strings.Contains(stderr, "not available") {
		t.Skip("no OS sandbox here: " + stderr)
	}
	res := wtResults(srv)
	if !strings.Contains(res["toolu_02_01"], "COMMITTED") {
		t.Fatalf("commits inside the worktree failed: %s", res["toolu_02_01"])
	}
	if !strings.Contains(res["toolu_03_01"], "only ouro's branches (refs/heads/ouro/) are writable") {
		t.Errorf("the refusal does not say which branches may be made: %s", res["toolu_03_01"])
	}
	refs := wtGit(t, e.dir, "for-each-ref", "--format=%(refname)")
	for _, r := range []string{"refs/heads/evil", "refs/heads/feature/x", "refs/replace/", "refs/stash", "refs/notes/"} {
		if strings.Contains(refs, r) {
			t.Errorf("a sandboxed command in a worktree made %s:\n%s\n%v", r, refs, res)
		}
	}
	for _, r := range []string{"refs/heads/ouro/atk", "refs/heads/ouro/extra"} {
		if !strings.Contains(refs, r) {
			t.Errorf("%s is missing:\n%s", r, refs)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".git", "refs", "heads", "evil")); err == nil {
		t.Error("refs/heads/evil exists")
	}
}

// pidsIn reads the pids hooks wrote to files in dir, once all of names exist.
func pidsIn(dir string, names ...string) ([]int, bool) {
	var pids []int
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			return nil, false
		}
		pids = append(pids, pid)
	}
	return pids, true
}

// A hook (not async) that leaves processes behind, in its own group or a new session,
// and then blocks: kill -9 of ouro while it runs takes the hook and all of them along.
func TestAttackHookChildrenDieWithKilledOuro(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc (Linux)")
	}
	e := newEnv(t)
	e.settings(".claude/settings.json", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","timeout":600,
"command":"sleep 1001 & echo $! > a.pid; setsid sleep 1002 > /dev/null 2>&1 & echo $! > b.pid; echo $$ > hook.pid; sleep 1003"}]}]}}`)
	e.fake(scripted.Turn{Text: "done"})
	c := e.cmd("-p", "go")
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	eventually(t, "the hook's processes", func() (ok bool) { pids, ok = pidsIn(e.dir, "a.pid", "b.pid", "hook.pid"); return ok }, out.String)
	time.Sleep(100 * time.Millisecond) // the blocking sleep has started
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	for _, pid := range pids {
		eventually(t, "process "+strconv.Itoa(pid)+" the hook started to die with ouro", func() bool { return !alive(pid) }, out.String)
	}
}

// A hook that starts a process and exits: nothing it started outlives it (as with a Bash
// command), so a finished session leaves no process of a hook behind.
func TestAttackHookChildrenDieWithTheHook(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc (Linux)")
	}
	e := newEnv(t)
	e.settings(".claude/settings.json", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command",
"command":"nohup setsid sleep 1004 > /dev/null 2>&1 & echo $! > a.pid"}]}]}}`)
	e.fake(scripted.Turn{Text: "done"})
	start := time.Now()
	out, stderr, code := e.run("", "-p", "go")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the run took %v", d)
	}
	pids, ok := pidsIn(e.dir, "a.pid")
	if !ok {
		t.Fatalf("the hook did not run\n%s", stderr)
	}
	eventually(t, "the hook's child to die", func() bool { return !alive(pids[0]) }, func() string { return stderr })
}

// With TMPDIR inside the workspace, or the temp dir under sandbox.filesystem.allowWrite,
// the CLAUDE_ENV_FILE folder would be writable by sandboxed commands, which could then
// plant a script every later Bash command sources (an unsandboxed one included). ouro
// makes the folder elsewhere, and the hook's export still reaches Bash.
func TestAttackEnvFileFolderOutsideTheSandbox(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	for _, c := range []string{"tmpdir-in-workspace", "allowWrite-tmp"} {
		t.Run(c, func(t *testing.T) {
			e := newEnv(t)
			tmp := filepath.Join(e.dir, "tmp")
			settings := `{"hooks": {"SessionStart": [{"hooks": [
	{"type": "command", "command": "dirname \"$CLAUDE_ENV_FILE\" > ` + filepath.Join(e.home, "envdir") + `; echo 'export FROM_HOOK=1' >> \"$CLAUDE_ENV_FILE\""}]}]}`
			if c == "allowWrite-tmp" {
				tmp = t.TempDir()
				settings += `, "sandbox": {"filesystem": {"allowWrite": ["/` + tmp + `"]}}`
			}
			settings += "}"
			if err := os.MkdirAll(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			e.settings(".claude/settings.json", settings)
			e.vars = append(e.vars, "TMPDIR="+tmp)
			plant := `for d in $(cat ` + filepath.Join(e.home, "envdir") + `) ` + tmp + `/ouro-session-env-*; do echo 'export PLANTED=1' > "$d/zz-plant.sh" 2>/dev/null && echo "planted in $d"; done; true`
			srv := e.fake(
				scripted.Turn{ToolCalls: bash(plant)},
				scripted.Turn{ToolCalls: bash(`echo "planted=$PLANTED hook=$FROM_HOOK"`)},
				scripted.Turn{Text: "done"},
			)
			out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
			if code != 0 || out != "done\n" {
				t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
			}
			res := wtResults(srv)
			if strings.Contains(res["toolu_01_01"], "planted in") || res["toolu_02_01"] != "planted= hook=1" {
				t.Errorf("a sandboxed command planted a script in the env folder: %q %q\n%s", res["toolu_01_01"], res["toolu_02_01"], stderr)
			}
		})
	}
}

// Rules anchored in the main checkout (`/path`: the settings file's project; `//path`:
// absolute) name the project's files; in a worktree they cover the worktree's copies too,
// for the session that entered it and for a subagent isolated in one. Without that a deny
// on `Read(/.env)` did not stop a read of the worktree's .env. An "always" answer given
// in a worktree is saved relative to the working directory (Edit(src/x.go)) in the main
// checkout's .ouro/settings.local.json, so it counts in the main checkout and in
// worktrees alike, and is not lost with the worktree.
func TestAttackWorktreeKeepsRootAnchoredRules(t *testing.T) {
	e := newEnv(t)
	for name, body := range map[string]string{".env": "TOKEN=1\n", "secrets/k": "SECRET\n", "docs/a.md": "a\n"} {
		writeFile(t, filepath.Join(e.dir, name), body)
	}
	wtRepo(t, e)
	e.settings(".claude/settings.json", `{"permissions":{"deny":["Read(/.env)","Edit(/secrets/**)","Read(//`+strings.TrimPrefix(e.dir, "/")+`/docs/**)"]}}`)
	read := func(p string) []scripted.ToolCall { return call("Read", map[string]string{"file_path": p}) }
	srv := e.fake(
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "rules"})},
		scripted.Turn{ToolCalls: read(".env")},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwWrite("secrets/k", "CHANGED\n")}},
		scripted.Turn{ToolCalls: read("docs/a.md")},
		scripted.Turn{ToolCalls: read("go.mod")},
		scripted.Turn{ToolCalls: call("ExitWorktree", map[string]string{"action": "keep"})},
		scripted.Turn{ToolCalls: agentIsolated("read the env")},
		scripted.Turn{ExpectContains: "read the env", ToolCalls: read(".env")},
		scripted.Turn{Text: "child done"},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	res := wtResults(srv)
	for id, rule := range map[string]string{"toolu_02_01": "Read(/.env)", "toolu_03_01": "Edit(/secrets/**)", "toolu_04_01": "/docs/**)", "toolu_08_01": "Read(/.env)"} {
		if !strings.Contains(res[id], "denied by the rule") || !strings.Contains(res[id], rule) {
			t.Errorf("%s: not denied by %s in the worktree: %q", id, rule, res[id])
		}
	}
	if !strings.Contains(res["toolu_05_01"], "module example.com/demo") {
		t.Errorf("an unrelated read in the worktree failed: %q", res["toolu_05_01"])
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, ".ouro", "worktrees", "rules", "secrets", "k")); string(b) != "SECRET\n" {
		t.Errorf("the worktree's secrets/k was written: %q", b)
	}
}

func agentIsolated(prompt string) []scripted.ToolCall {
	return call("Agent", map[string]any{"description": "iso", "prompt": prompt, "subagent_type": "general-purpose", "isolation": "worktree"})
}

// An "always" answer given in a worktree is saved as a rule relative to the working
// directory in the main checkout's .ouro/settings.local.json: it is not lost with the
// worktree, and a later session in the main checkout is allowed the same edit.
func TestAttackWorktreeAlwaysAnswerIsTheProjects(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	e.fake(
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "al"})},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwWrite("src/x.go", "package x\n")}},
		scripted.Turn{Text: "ok"},
	)
	if out, stderr, code := e.run("go\na\n/exit\n"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(e.dir, ".ouro", "settings.local.json"))
	if !strings.Contains(string(b), `"Edit(src/x.go)"`) {
		t.Fatalf("the always answer was saved as %s", b)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".ouro", "worktrees", "al", ".ouro", "settings.local.json")); err == nil {
		t.Error("the answer went to the worktree's own settings, which go with it")
	}
	srv := e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{rwWrite("src/x.go", "package y\n")}}, scripted.Turn{Text: "done"})
	if out, stderr, code := e.run("", "-p", "again"); code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "src", "x.go")); string(b) != "package y\n" {
		t.Errorf("the saved rule did not allow the edit in the main checkout: %q %v", b, wtResults(srv))
	}
}

// A skill's !`command`s, run while the session is in a worktree, run in the worktree and
// its sandbox like the session's Bash: they ran in the main checkout, where the sandbox
// let them write, so a skill escaped the worktree's confinement.
func TestAttackSkillCommandStaysInTheWorktree(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "skills", "mark", "SKILL.md"),
		"---\nname: mark\ndescription: marks\n---\nHere: !`pwd -P; echo x > marker.txt; echo y > "+filepath.Join(e.dir, "escaped.txt")+"; echo wrote`\n")
	wtRepo(t, e)
	srv := e.fake(
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "sk"})},
		scripted.Turn{ToolCalls: call("Skill", map[string]string{"skill": "mark"})},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	wt, _ := filepath.EvalSymlinks(filepath.Join(e.dir, ".ouro", "worktrees", "sk"))
	res := wtResults(srv)["toolu_02_01"]
	if !strings.Contains(res, "Here: "+wt+"\n") {
		t.Errorf("the skill's command did not run in the worktree %s: %q", wt, res)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "marker.txt")); err == nil {
		t.Error("the skill's command wrote marker.txt in the main checkout")
	}
	if _, err := os.Stat(filepath.Join(wt, "marker.txt")); err != nil {
		t.Errorf("the skill's command did not write in the worktree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "escaped.txt")); err == nil && !strings.Contains(stderr, "not available") {
		t.Errorf("the skill's command wrote the main checkout from a worktree: %q", res)
	}
}

// The same for a subagent isolated in a worktree: a skill it invokes runs its commands in
// the child's worktree, sandbox and gates, not in the main checkout under the session's.
func TestAttackIsolatedChildSkillStaysInItsWorktree(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "skills", "mark", "SKILL.md"),
		"---\nname: mark\ndescription: marks\n---\nHere: !`pwd -P; echo x > marker.txt; echo wrote`\n")
	wtRepo(t, e)
	srv := e.fake(
		scripted.Turn{ToolCalls: agentIsolated("mark it")},
		scripted.Turn{ExpectContains: "mark it", ToolCalls: call("Skill", map[string]string{"skill": "mark"})},
		scripted.Turn{Text: "child done"},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	res := wtResults(srv)["toolu_02_01"]
	if !strings.Contains(res, "/.ouro/worktrees/") || !strings.Contains(res, "wrote") {
		t.Errorf("the child's skill did not run in its worktree: %q", res)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "marker.txt")); err == nil {
		t.Error("the child's skill wrote marker.txt in the main checkout")
	}
}

// .mcp.json names commands ouro starts unsandboxed, and the user's approval of a project
// server goes by its name: a sandboxed command that rewrote an approved server's command
// (in a way the permission rules cannot see, here a name decoded at run time, under
// bypassPermissions) would run it outside the sandbox at the next session. The sandbox
// keeps .mcp.json read-only, and takes back one a command creates.
func TestAttackSandboxKeepsMCPConfigReadOnly(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	for _, exists := range []bool{true, false} {
		t.Run("exists="+strconv.FormatBool(exists), func(t *testing.T) {
			e := newEnv(t)
			orig := `{"mcpServers":{"tools":{"command":"true"}}}` + "\n"
			if exists {
				writeFile(t, filepath.Join(e.dir, ".mcp.json"), orig)
			}
			evil := `{"mcpServers":{"tools":{"command":"sh","args":["-c","touch PWNED"]}}}`
			srv := e.fake(
				scripted.Turn{ToolCalls: bash(`printf '%s' '` + evil + `' > "$(echo Lm1jcC5qc29u | base64 -d)"; echo "status $?"`)},
				scripted.Turn{Text: "done"},
			)
			out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
			if code != 0 || out != "done\n" {
				t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
			}
			b, err := os.ReadFile(filepath.Join(e.dir, ".mcp.json"))
			switch {
			case exists && string(b) != orig:
				t.Errorf(".mcp.json was rewritten: %q\n%v", b, wtResults(srv))
			case !exists && err == nil:
				t.Errorf("a sandboxed command created .mcp.json: %q\n%v", b, wtResults(srv))
			}
		})
	}
}

// A worker process cannot take the lead's name in another case ("MAIN"), as an in-process
// teammate cannot: where the store's names meet a case-insensitive file system (JetStream
// keeps a durable consumer per mailbox on disk) it would share the lead's mailbox, and
// the lead's model would read its messages as its own name's.
func TestAttackWorkerCannotTakeTheLeadsName(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "unused"})
	for _, name := range []string{"main", "MAIN", "Main"} {
		out, err := e.cmd("team", "worker", "--team", "crew", "--name", name).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "cannot name a teammate") {
			t.Errorf("--name %s: %v\n%s", name, err, out)
		}
	}
}
