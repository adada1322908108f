//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
	// 2026-12-04: issue 30's features (WebSearch, extended thinking, the status line,
	// plugin marketplaces, five hook events with fsnotify, apiKeyHelper and Bedrock with
	// the AWS SDK's config, sts, sso and imds) took it to 33.4 MB hot and 34.3 MB cold
	// (anonymous memory 7.4 MB, unchanged: again clean pages of the binary), so the guard
	// is 36 MB; Vertex, which would add gRPC and protobuf (204 packages), is behind the
	// vertex build tag for this reason.
	taskGuardKB = 36 << 10 // 36 MB
	// binaryGuard bounds the release binary: 64.9 MB today, 30.5 MB before goja was linked.
	binaryGuard = 70 << 20
	// taskRuns is how many times each way of running the task is measured.
	taskRuns = 5
	// privateTargetKB is issue 32's target for the task's anonymous memory (goal 2).
	privateTargetKB = 8 << 10
)

// Issue 12, item 22 and issue 32, goal 2: the memory of `ouro --version` and of a
// 3-turn headless task (Glob, Read, answer) through the release binary, measured by
// testdata/rssprobe. Run with -v to see the figures. Which figure is which (all peaks,
// of one process, in MB):
//
//   - RSS (ru_maxrss): every page mapped, the binary's own pages included. Those are
//     clean copies of the file, shared with every other ouro and with the page cache:
//     what a second ouro costs is far less than its RSS.
//   - Pss: RSS with each shared page divided among the processes that map it.
//   - private (Private_Clean + Private_Dirty): pages only this process maps. A lone
//     ouro is the only one mapping its binary's pages, so they count here too, though
//     the kernel can drop them at any time.
//   - anonymous: memory that is the process's own and nobody else's (heap, stacks, the
//     runtime's structures, written data): what each further ouro really adds, and what
//     issue 32's 8 MB target is about.
//
// Cold runs drop the binary from the page cache first (the first run after an install
// or a reboot); hot runs follow a run that left it there. Each figure is the median of
// taskRuns runs (CPU time varies with the machine's load far more than memory does);
// smaps figures are sampled every millisecond (see rssprobe). The same task keeping the
// pages only initialisation touched (OURO_KEEP_INIT_PAGES=1, see internal/lean) is
// measured too, with the CPU time each way: what lean saves and costs.
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

	// Runs alternate between keeping and dropping the init pages so that a change of the
	// machine's load touches both alike.
	figures := map[string][]taskMemory{}
	var task int64 // the largest RSS of any run with lean on: what the guard holds
	for _, cold := range []bool{true, false} {
		if !cold {
			taskMemoryOf(t, bin, probe, false) // leaves the binary in the page cache
		}
		for range taskRuns {
			for _, keep := range []bool{false, true} {
				if cold {
					dropFromCache(t, bin)
				}
				m := taskMemoryOf(t, bin, probe, keep)
				k := memoryKey(keep, cold)
				figures[k] = append(figures[k], m)
				if !keep {
					task = max(task, m.MaxRSS)
				}
			}
		}
	}
	var sb strings.Builder
	for _, cold := range []bool{true, false} {
		for _, keep := range []bool{false, true} {
			m := median(figures[memoryKey(keep, cold)])
			fmt.Fprintf(&sb, "\n  %-28s RSS %5.1f  Pss %5.1f  private %5.1f  anonymous %4.1f MB  CPU %3.0f ms",
				memoryKey(keep, cold)+":", mb(m.MaxRSS), mb(m.PSS), mb(m.Private), mb(m.Anonymous), float64(m.CPUMicros)/1000)
		}
	}
	lean, kept := median(figures[memoryKey(false, false)]), median(figures[memoryKey(true, false)])
	t.Logf("release build %.1f MB; peak RSS of --version %.1f MB (target %d MB); the 3-turn headless task (median of %d, peak MB; target %d MB RSS, %d MB anonymous):%s\n  internal/lean, hot: saves %.1f MB RSS and %.1f MB private (%.1f MB anonymous) for %+.0f ms CPU (%+.0f%%)",
		mb(st.Size()>>10), mb(version), versionTargetKB>>10, taskRuns, taskTargetKB>>10, privateTargetKB>>10, sb.String(),
		mb(kept.MaxRSS-lean.MaxRSS), mb(kept.Private-lean.Private), mb(kept.Anonymous-lean.Anonymous),
		float64(lean.CPUMicros-kept.CPUMicros)/1000, 100*float64(lean.CPUMicros-kept.CPUMicros)/float64(max(kept.CPUMicros, 1)))
	if version > versionTargetKB {
		t.Errorf("--version peaked at %.1f MB, over its %d MB target", mb(version), versionTargetKB>>10)
	}
	if task > taskGuardKB {
		t.Errorf("a 3-turn task peaked at %.1f MB, over the %.1f MB this test allows (target %d MB): measure what the change links or initialises (GODEBUG=inittrace=1)", mb(task), mb(taskGuardKB), taskTargetKB>>10)
	}
	for _, cold := range []bool{true, false} {
		if a := median(figures[memoryKey(false, cold)]).Anonymous; a > privateTargetKB {
			t.Errorf("%s: the task's anonymous memory peaked at %.1f MB, over the %d MB target: see what allocates (GODEBUG=inittrace=1, a heap profile)", memoryKey(false, cold), mb(a), privateTargetKB>>10)
		}
	}
}

// taskMemory is what testdata/rssprobe -smaps prints, in KB and microseconds.
type taskMemory struct {
	MaxRSS    int64 `json:"maxrss_kb"`
	PSS       int64 `json:"pss_kb"`
	Private   int64 `json:"private_kb"`
	Anonymous int64 `json:"anonymous_kb"`
	CPUMicros int64 `json:"cpu_us"`
}

func memoryKey(keep, cold bool) string {
	k := "hot"
	if cold {
		k = "cold"
	}
	if keep {
		return k + ", init pages kept"
	}
	return k + ", lean (default)"
}

func mb(kb int64) float64 { return float64(kb) / 1024 }

// median takes each figure's median over the runs on its own.
func median(ms []taskMemory) taskMemory {
	pick := func(f func(taskMemory) int64) int64 {
		v := make([]int64, 0, len(ms))
		for _, m := range ms {
			v = append(v, f(m))
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return taskMemory{
		MaxRSS:    pick(func(m taskMemory) int64 { return m.MaxRSS }),
		PSS:       pick(func(m taskMemory) int64 { return m.PSS }),
		Private:   pick(func(m taskMemory) int64 { return m.Private }),
		Anonymous: pick(func(m taskMemory) int64 { return m.Anonymous }),
		CPUMicros: pick(func(m taskMemory) int64 { return m.CPUMicros }),
	}
}

// taskMemoryOf runs the 3-turn headless task (Glob, Read, answer) once through the
// release binary bin and the probe, keeping the init pages or not.
func taskMemoryOf(t *testing.T, bin, probe string, keep bool) taskMemory {
	t.Helper()
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
	if keep {
		c.Env = append(c.Env, "OURO_KEEP_INIT_PAGES=1")
	}
	c.Args = append([]string{probe, "-smaps"}, c.Args...)
	c.Path = probe
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%v: %v", c.Args, err)
	}
	var m taskMemory
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("probe printed %q: %v", out, err)
	}
	return m
}
