//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/ouroagent/ouro/llm/scripted"
)

// OURO_PROFILE=DIR writes a CPU and a heap profile of the run as it ends, both readable
// by pprof; a workflow engine the run starts writes its own in DIR/workflow, not over
// the run's.
func TestProfileOnDemand(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "Nothing to do."})
	dir := filepath.Join(t.TempDir(), "prof") // created by ouro
	e.vars = append(e.vars, "OURO_PROFILE="+dir)
	out, stderr, code := e.run("", "-p", "hello")
	if code != 0 || !strings.Contains(out, "Nothing to do.") {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if strings.Contains(stderr, "OURO_PROFILE") {
		t.Errorf("the profiles were not all written: %s", stderr)
	}
	cpu := readProfile(t, filepath.Join(dir, "cpu.pprof"))
	if len(cpu.SampleType) == 0 || cpu.SampleType[len(cpu.SampleType)-1].Unit != "nanoseconds" {
		t.Errorf("cpu.pprof is no CPU profile: %v", cpu.SampleType)
	}
	heap := readProfile(t, filepath.Join(dir, "heap.pprof"))
	var units []string
	for _, st := range heap.SampleType {
		units = append(units, st.Type)
	}
	if !strings.Contains(strings.Join(units, " "), "inuse_space") {
		t.Errorf("heap.pprof is no heap profile: %v", units)
	}
	if len(heap.Sample) == 0 {
		t.Error("heap.pprof has no samples")
	}

	// A subcommand that starts the workflow engine: the engine's profiles go to its folder.
	if _, stderr, code := e.run("", "workflow", "list"); code != 0 {
		t.Fatalf("workflow list: exit %d\n%s", code, stderr)
	}
	readProfile(t, filepath.Join(dir, "workflow", "cpu.pprof"))
	readProfile(t, filepath.Join(dir, "workflow", "heap.pprof"))
}

func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}
