package worktree

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets a test re-run this binary as a process that creates a worktree and is
// killed (-9) in the middle.
func TestMain(m *testing.M) {
	if root := os.Getenv("WORKTREE_RACE_ROOT"); root != "" {
		_, err := New(root, Options{}).Create(context.Background(), "same")
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("created")
		os.Exit(0)
	}
	if root := os.Getenv("WORKTREE_CRASH_ROOT"); root != "" {
		_, err := New(root, Options{Git: os.Getenv("WORKTREE_CRASH_GIT")}).Create(context.Background(), "crash")
		fmt.Println("survived:", err)
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// TestKilledDuringCreate: a process killed by SIGKILL while git was adding the worktree
// (its registration still locked "initializing", a half-made folder) leaves nothing the
// next Create does not undo; the same name then works.
func TestKilledDuringCreate(t *testing.T) {
	root := repo(t)
	wt := filepath.Join(root, ".ouro", "worktrees", "crash")
	wrapper := filepath.Join(t.TempDir(), "git")
	write(t, wrapper, fmt.Sprintf(`#!/bin/sh
case "$*" in
*"worktree add"*)
	git "$@"
	git -C %[1]q worktree lock --reason initializing %[2]q
	echo half > %[2]q/half-written
	kill -9 $PPID
	sleep 5
	exit 1;;
esac
exec git "$@"
`, root, wt))
	os.Chmod(wrapper, 0o755)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WORKTREE_CRASH_ROOT="+root, "WORKTREE_CRASH_GIT="+wrapper)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 || strings.Contains(string(out), "survived") {
		t.Fatalf("the helper was not killed: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(wt, "half-written")); err != nil {
		t.Fatal("the crash left nothing to recover from:", err)
	}

	m := New(root, Options{})
	w, err := m.Create(context.Background(), "crash")
	if err != nil {
		t.Fatalf("Create after the crash: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Path, "half-written")); !os.IsNotExist(err) {
		t.Fatal("the half-made folder was kept")
	}
	list := gitT(t, root, "worktree", "list", "--porcelain")
	if strings.Contains(list, "locked") || strings.Count(list, "worktree ") != 2 {
		t.Fatalf("worktrees after recovery:\n%s", list)
	}
	if ents, _ := os.ReadDir(filepath.Join(root, ".ouro", "worktrees", ".pending")); len(ents) != 0 {
		t.Fatalf("pending records left: %d", len(ents))
	}
}

// TestProcessesCreateTheSameName: several processes creating one name at once; exactly
// one wins, the others are told it exists, and git's state stays whole.
func TestProcessesCreateTheSameName(t *testing.T) {
	root := repo(t)
	var cmds []*exec.Cmd
	outs := make([]*strings.Builder, 4)
	for i := range outs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "WORKTREE_RACE_ROOT="+root)
		outs[i] = &strings.Builder{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	won := 0
	for i, cmd := range cmds {
		err := cmd.Wait()
		out := outs[i].String()
		switch {
		case err == nil && strings.Contains(out, "created"):
			won++
		case !strings.Contains(out, "already exists"):
			t.Errorf("a losing process failed unclearly: %s", out)
		}
	}
	if won != 1 {
		t.Fatalf("%d processes created the worktree", won)
	}
	list := gitT(t, root, "worktree", "list", "--porcelain")
	if strings.Count(list, "worktree ") != 2 || strings.Contains(list, "locked") {
		t.Fatalf("worktrees:\n%s", list)
	}
}
