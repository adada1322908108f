//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Peak memory targets of issue 12, item 22, for a release build.
const (
	// `ouro --version`: 10 MB until issue 32 linked the OpenAI SDK and goja into ouro;
	// the runtime's own start-up touches type data and itabs in proportion to the binary,
	// and --version went from 6.6 to 10.8 MB (cold page cache, 3 runs).
	versionTargetKB = 12 << 10
	taskTargetKB    = 25 << 10 // a 3-turn headless task
	// taskGuardKB is what this test enforces for the task. Before the fixes of item 22
	// the task peaked at 45 MB (34 MB in this test, which measures ouro as installed).
	// Package initialisation runs in every process for every linked package, and since
	// ouro became one binary with every feature (issue 32) it links the OpenAI SDK and
	// the JavaScript engine (goja), which the ouro-openai and ouro-workflow helpers held
	// before: goja's reflection makes the linker keep every exported method of every type
	// (the binary grew from 30.5 to 64.9 MB), and the pages a run touches are sparser. The
	// task went from 22.4 to 31.7 MB of RSS (median of 5, cold page cache; private,
	// anonymous memory 6.5 -> 7.1 MB: the growth is clean pages of the binary, shared by
	// every ouro on the machine; 26.9 MB with the SDK and without goja). internal/lean releases what only initialisation touched
	// (the figure without it, OURO_KEEP_INIT_PAGES=1, is logged too). The guard sits about
	// 2 MB above today's figure (31.0-32.1 MB over repeated runs on a busy 2-core machine),
	// so that growth shows; the target of item 22 is not met while goja is linked.
	taskGuardKB = 34 << 10 // 34 MB
	// binaryGuard bounds the release binary: 64.9 MB today, 30.5 MB before goja was linked.
	binaryGuard = 70 << 20
)

// Issue 12, item 22: the peak RSS of `ouro --version` and of a 3-turn headless task
// (Glob, Read, answer) through the release binary, the largest of three runs each,
// measured by testdata/rssprobe. Run with -v to see the figures.
//
// Most of ouro's resident memory is its own binary: the pages of code and read-only data
// that starting and running touch. The class of problem guarded here is what inflates
// them: whatever makes the linker keep every exported method of every type (a template
// executed anywhere, text/template calling methods by name, once took the binary from 39
// to 75 MB; goja's reflection does the same, and is linked since ouro became one binary)
// and any other way of linking or initialising much more than a run uses.
func TestPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release binary")
	}
	bin, probe := buildRelease(t)

	// This test used to refuse text/template's evalField in the binary (a template
	// executed somewhere keeps every exported method). Since goja is linked the linker
	// keeps them all anyway, so evalField is there (cobra's template methods are kept
	// with the rest) and says nothing: the size of the binary is the guard instead.
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > binaryGuard {
		t.Errorf("the release binary is %.1f MB, over the %d MB this test allows: measure what the change links", float64(st.Size())/(1<<20), binaryGuard>>20)
	}

	var version int64
	for range 3 {
		version = max(version, peakKB(t, probe, exec.Command(bin, "--version")))
	}

	var task int64
	for range 3 {
		e := newEnv(t)
		if err := os.WriteFile(filepath.Join(e.dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		e.fake(
			scripted.Turn{Text: "Looking.", ToolCalls: []scripted.ToolCall{{Name: "Glob", Input: json.RawMessage(`{"pattern":"*.go"}`)}}},
			scripted.Turn{ExpectContains: "main.go", ToolCalls: []scripted.ToolCall{{Name: "Read", Input: json.RawMessage(`{"file_path":"main.go"}`)}}},
			scripted.Turn{ExpectContains: "func main", Text: "There is one Go file with an empty main."},
		)
		c := e.cmd("-p", "what is here")
		c.Path, c.Args[0] = bin, bin
		task = max(task, peakKB(t, probe, c))
	}

	// The same task keeping the pages only initialisation touched (see internal/lean).
	kept := func() int64 {
		e := newEnv(t)
		if err := os.WriteFile(filepath.Join(e.dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		e.fake(
			scripted.Turn{Text: "Looking.", ToolCalls: []scripted.ToolCall{{Name: "Glob", Input: json.RawMessage(`{"pattern":"*.go"}`)}}},
			scripted.Turn{ExpectContains: "main.go", ToolCalls: []scripted.ToolCall{{Name: "Read", Input: json.RawMessage(`{"file_path":"main.go"}`)}}},
			scripted.Turn{ExpectContains: "func main", Text: "There is one Go file with an empty main."},
		)
		c := e.cmd("-p", "what is here")
		c.Path, c.Args[0] = bin, bin
		c.Env = append(c.Env, "OURO_KEEP_INIT_PAGES=1")
		return peakKB(t, probe, c)
	}()

	t.Logf("peak RSS of the release build (%.1f MB): --version %.1f MB (target %d), 3-turn headless task %.1f MB (target %d; %.1f MB keeping the pages only initialisation touched)",
		float64(st.Size())/(1<<20), float64(version)/1024, versionTargetKB>>10, float64(task)/1024, taskTargetKB>>10, float64(kept)/1024)
	if version > versionTargetKB {
		t.Errorf("--version peaked at %.1f MB, over its %d MB target", float64(version)/1024, versionTargetKB>>10)
	}
	if task > taskGuardKB {
		t.Errorf("a 3-turn task peaked at %.1f MB, over the %.1f MB this test allows (target %d MB): measure what the change links or initialises (GODEBUG=inittrace=1)", float64(task)/1024, float64(taskGuardKB)/1024, taskTargetKB>>10)
	}
}
