//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// thousandAgents is a workflow of 1,000 agent() calls in one parallel() barrier.
const thousandAgents = `export const meta = { name: 'thousand', description: 'a thousand agents, each answering once' };
const out = await parallel(Array.from({ length: 1000 }, (_, i) => () => agent('step ' + i, { label: 'step ' + i })));
return { answered: out.filter((x) => x === 'ok').length };
`

// BenchmarkWorkflow1000 runs a journaled workflow of 1,000 agents through the binary
// (`ouro workflow run`, with its ouro-workflow helper) against the fake model, then
// resumes that run: every one of the 1,000 calls is answered from the journal. It
// reports ouro's CPU for each (user + system of ouro and the helper it waited for, from
// rusage; the fake model runs in the benchmark's process and is not counted) and the
// resume's wall time. Targets (issue 32): at most 2 s of CPU for the run, under 0.5 s
// for the resume.
//
//	go test ./cmd/ouro -run NONE -bench Workflow1000 -benchtime 1x
func BenchmarkWorkflow1000(b *testing.B) {
	home, dir := b.TempDir(), b.TempDir()
	var base []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "OURO_") || k == "HOME" || k == "XDG_CACHE_HOME" {
			continue
		}
		base = append(base, kv)
	}
	base = append(base, "HOME="+home, "OURO_HOME="+filepath.Join(home, ".ouro"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "ANTHROPIC_API_KEY=test-key")
	script := filepath.Join(dir, "thousand.js")
	if err := os.WriteFile(script, []byte(thousandAgents), 0o644); err != nil {
		b.Fatal(err)
	}
	turns := make([]scripted.Turn, 1000)
	for i := range turns {
		turns[i] = scripted.Turn{Text: "ok"}
	}
	run := func(srv *fakeserver.Server, args ...string) (cpu, wall time.Duration, stdout, stderr string) {
		hs := httptest.NewServer(srv)
		defer hs.Close()
		c := exec.Command(binary, append([]string{"workflow", "run", script}, args...)...)
		c.Dir = dir
		c.Env = append(base, "ANTHROPIC_BASE_URL="+hs.URL)
		var o, e bytes.Buffer
		c.Stdout, c.Stderr = &o, &e
		began := time.Now()
		if err := c.Run(); err != nil {
			b.Fatalf("workflow run %v: %v\n%s\n%s", args, err, o.String(), e.String())
		}
		wall = time.Since(began)
		ru := c.ProcessState.SysUsage().(*syscall.Rusage)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), wall, o.String(), e.String()
	}
	answered := func(out string) int {
		var res struct {
			Answered int `json:"answered"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return res.Answered
	}
	var runCPU, runWall, resumeCPU, resumeWall time.Duration
	n := 0
	for b.Loop() {
		srv, err := fakeserver.New(&scripted.Script{Turns: turns})
		if err != nil {
			b.Fatal(err)
		}
		cpu, wall, out, errOut := run(srv)
		if got := answered(out); got != 1000 {
			b.Fatalf("%d of 1000 agents answered:\n%s", got, errOut)
		}
		m := wfRunID.FindStringSubmatch(errOut)
		if m == nil {
			b.Fatalf("no run id in:\n%s", errOut)
		}
		runCPU, runWall = runCPU+cpu, runWall+wall
		idle, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{{Text: "not replayed"}}}) // never asked
		if err != nil {
			b.Fatal(err)
		}
		cpu, wall, out, errOut = run(idle, "--resume", m[1])
		if got := answered(out); got != 1000 {
			b.Fatalf("the resume answered %d of 1000:\n%s", got, errOut)
		}
		if !strings.Contains(errOut, "1000 replayed") {
			b.Logf("resume's report (no \"1000 replayed\"):\n%s", textTail(errOut, 600))
		}
		resumeCPU, resumeWall = resumeCPU+cpu, resumeWall+wall
		n++
	}
	per := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
	b.ReportMetric(per(runCPU), "s-cpu/run")
	b.ReportMetric(per(runWall), "s-wall/run")
	b.ReportMetric(per(resumeCPU), "s-cpu/resume")
	b.ReportMetric(per(resumeWall), "s-wall/resume")
}

func textTail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
