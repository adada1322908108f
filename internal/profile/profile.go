// Package profile writes a CPU and a heap profile of one ouro run on demand (chapter:
// operations): with OURO_PROFILE=DIR in its environment, ouro writes DIR/cpu.pprof (the
// whole run) and DIR/heap.pprof (the heap as the run ends), for `go tool pprof`. The
// processes ouro starts of itself (the workflow engine, --team-process workers) write
// theirs in a folder of DIR named after them (ChildEnv), so no two write the same file.
package profile

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
)

// Env names the variable that asks for the profiles.
const Env = "OURO_PROFILE"

// Start begins the CPU profile when OURO_PROFILE names a folder (created if missing) and
// returns what ends it: stop writes the CPU profile out and the heap profile, once, and
// is to be called as the process ends (before os.Exit). Without the variable it does
// nothing and stop is a no-op. A profile that cannot be written is reported on stderr,
// never fails the run.
func Start() (stop func()) {
	dir := os.Getenv(Env)
	if dir == "" {
		return func() {}
	}
	warn := func(err error) { fmt.Fprintf(os.Stderr, "ouro: %s: %v\n", Env, err) }
	if err := os.MkdirAll(dir, 0o755); err != nil {
		warn(err)
		return func() {}
	}
	cpu, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		warn(err)
		cpu = nil
	} else if err := pprof.StartCPUProfile(cpu); err != nil {
		warn(err)
		cpu.Close()
		cpu = nil
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if cpu != nil {
				pprof.StopCPUProfile()
				if err := cpu.Close(); err != nil {
					warn(err)
				}
			}
			if err := writeHeap(filepath.Join(dir, "heap.pprof")); err != nil {
				warn(err)
			}
		})
	}
}

// writeHeap writes the heap profile, as of a collection just run (what is live at the end,
// and everything allocated since the start).
func writeHeap(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ChildEnv is the environment for a process ouro starts of itself, named name (e.g.
// "workflow", "worker-alice"): this process's, with OURO_PROFILE pointing at DIR/name,
// so that its profiles do not overwrite this run's. Without OURO_PROFILE it is nil (the
// child inherits this process's environment unchanged).
func ChildEnv(name string) []string {
	dir := os.Getenv(Env)
	if dir == "" {
		return nil
	}
	sub := filepath.Join(dir, safeName(name))
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, Env+"=") {
			env = append(env, kv)
		}
	}
	return append(env, Env+"="+sub)
}

// safeName keeps a child's name one path element of letters, digits, '.', '_' and '-'.
func safeName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0) {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}
