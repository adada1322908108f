//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testMainWithCache runs the tests with the probe's cache in a folder of their own, not
// the user's cache folder.
func testMainWithCache(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ouro-sandbox-cache-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	probes = &prober{cacheDir: func() (string, error) { return dir, nil }}
	return m.Run()
}

// cacheFiles lists the verdicts in dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "probe-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The probe costs nothing until a sandboxed command needs it: Availability starts no
// process, the first Command probes once and keeps the verdict in the cache, and a later
// process (a new prober) of the same binary reads it instead of probing. A cache file
// that does not parse, or names another kernel or other user namespace sysctls, is
// ignored and rewritten (issue 27).
func TestProbeIsLazyAndCached(t *testing.T) {
	requireLandlock(t)
	saved := probes
	defer func() { probes = saved }()
	dir := t.TempDir()
	fresh := func() *prober {
		probes = &prober{cacheDir: func() (string, error) { return dir, nil }}
		return probes
	}
	w := newWorkspace(t)
	run := func() {
		t.Helper()
		cmd, err := Command(context.Background(), w.policy, "true")
		if err != nil {
			t.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("true: %v\n%s", err, out)
		}
	}

	p := fresh()
	if ok, w := Availability(w.policy); !ok {
		t.Fatalf("Availability: %q", w)
	}
	if n := p.runs.Load(); n != 0 || len(cacheFiles(t, dir)) != 0 {
		t.Fatalf("Availability probed: %d probes, cache %q", n, cacheFiles(t, dir))
	}
	run()
	run()
	files := cacheFiles(t, dir)
	if n := p.runs.Load(); n != 1 || len(files) != 1 {
		t.Fatalf("two commands: %d probes, cache %q; want 1 probe and its verdict kept", n, files)
	}
	var c probeCache
	if b, err := os.ReadFile(files[0]); err != nil || json.Unmarshal(b, &c) != nil {
		t.Fatalf("the cache file does not parse: %v", err)
	}
	if want, _ := p.key(); c.Key != want || c.Result != *p.result {
		t.Errorf("the cache holds %+v, want %+v and the verdict %+v", c, want, *p.result)
	}

	p = fresh()
	run()
	if n := p.runs.Load(); n != 0 {
		t.Errorf("a new process with the verdict in the cache probed %d times", n)
	}

	for name, spoil := range map[string]func([]byte) []byte{
		"corrupt":        func([]byte) []byte { return []byte("{not json") },
		"another kernel": func(b []byte) []byte { return []byte(strings.Replace(string(b), c.Key.Kernel, "0.0.0-other", 1)) },
		"other sysctls":  func(b []byte) []byte { return []byte(strings.Replace(string(b), `"sysctls":"`, `"sysctls":"0 `, 1)) },
		"no launcher": func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"launcher":true`, `"launcher":false`, 1))
		},
	} {
		orig, _ := os.ReadFile(files[0])
		if err := os.WriteFile(files[0], spoil(orig), 0o600); err != nil {
			t.Fatal(err)
		}
		p = fresh()
		run()
		got, _ := os.ReadFile(files[0])
		if n := p.runs.Load(); n != 1 || string(got) != string(orig) {
			t.Errorf("%s: %d probes, cache now %s; want it ignored and rewritten", name, n, got)
		}
	}
}
