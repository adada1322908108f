//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/memory"
)

func TestMemoryCommands(t *testing.T) {
	e := newEnv(t)
	out, _, code := e.run("", "memory", "list")
	if code != 0 || !strings.Contains(out, "No memories yet") {
		t.Fatalf("empty list: %d %q", code, out)
	}
	home := filepath.Join(e.home, ".ouro")
	store := memory.Open(memory.ProjectMemoryDir(harness.ProjectDirFor(home, e.dir)), "project")
	if err := store.Save(memory.Record{Name: "test-cmd", Description: "Tests run with go test ./...", Type: "project", Body: "Use -race."}); err != nil {
		t.Fatal(err)
	}
	out, _, code = e.run("", "memory", "list")
	if code != 0 || !strings.Contains(out, "test-cmd") || !strings.Contains(out, "Tests run with go test") {
		t.Fatalf("list: %d %q", code, out)
	}
	out, _, code = e.run("", "memory", "show", "test-cmd")
	if code != 0 || !strings.Contains(out, "Use -race.") {
		t.Fatalf("show: %d %q", code, out)
	}
	editor := filepath.Join(t.TempDir(), "edit.sh")
	os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/-race/-race -count=1/' \"$1\"\n"), 0o755)
	e.vars = append(e.vars, "EDITOR="+editor)
	if _, stderr, code := e.run("", "memory", "edit", "test-cmd"); code != 0 {
		t.Fatalf("edit: %d %s", code, stderr)
	}
	if r, err := store.Get("test-cmd"); err != nil || !strings.Contains(r.Body, "-count=1") {
		t.Fatalf("after edit: %+v %v", r, err)
	}
	out, _, code = e.run("", "memory", "forget", "test-cmd")
	if code != 0 || !strings.Contains(out, "forgot test-cmd") {
		t.Fatalf("forget: %d %q", code, out)
	}
	if _, stderr, code := e.run("", "memory", "show", "test-cmd"); code == 0 || !strings.Contains(stderr, "no memory named") {
		t.Fatalf("show after forget: %d %s", code, stderr)
	}
}
