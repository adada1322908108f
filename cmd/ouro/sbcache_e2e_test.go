//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// The sandbox's probe runs at the first sandboxed command, not at the start of every
// session, and its verdict is kept in the user's cache folder for the binary and the
// kernel: a 1-turn text session starts no probe (the probe always leaves its verdict,
// and there is none), the first session with a Bash command leaves one, and the next
// session uses it without probing again: a verdict changed in the file is what that
// session runs by (issue 27, section 1).
func TestSandboxProbeIsLazyAndCachedAcrossSessions(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	e := newEnv(t)
	cache := filepath.Join(t.TempDir(), "cache")
	e.vars = append(e.vars, "XDG_CACHE_HOME="+cache)
	verdicts := filepath.Join(cache, "ouro", "sandbox")

	e.fake(scripted.Turn{Text: "hello"})
	if out, stderr, code := e.run("", "-p", "say hello"); code != 0 || !strings.Contains(out, "hello") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(verdicts); err == nil {
		files, _ := os.ReadDir(verdicts)
		t.Fatalf("a session that ran no command probed the sandbox: %v", files)
	}

	ownNS, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Skipf("no /proc/self/ns: %v", err)
	}
	session := func() (results, stderr string) {
		t.Helper()
		e.fake(
			scripted.Turn{ToolCalls: bash("readlink /proc/self/ns/mnt")},
			scripted.Turn{Text: "done"},
		)
		out, stderr, code := e.run("", "-p", "which namespace?", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		return strings.Join(toolResults(t, out), "\n"), stderr
	}
	first, stderr := session()
	files, _ := filepath.Glob(filepath.Join(verdicts, "probe-*.json"))
	if len(files) != 1 {
		t.Fatalf("the first sandboxed command left %d verdicts, want 1 (stderr: %s)", len(files), stderr)
	}
	var c map[string]map[string]any
	b, _ := os.ReadFile(files[0])
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber() // the modification time in ns has more digits than a float64
	if err := dec.Decode(&c); err != nil || c["key"]["exe"] != binary || c["result"]["launcher"] != true {
		t.Fatalf("the verdict %s: %v", b, err)
	}
	if c["result"]["namespaces"] != true {
		t.Skipf("this machine runs the Landlock-only mode (%v): the cached verdict cannot be told from a new probe's", c["result"]["namespacesErr"])
	}
	if strings.Contains(first, ownNS) {
		t.Fatalf("in the namespace mode the command shares ouro's mount namespace: %s", first)
	}

	// A verdict for the Landlock-only mode in the file: the next session runs by it.
	c["result"]["namespaces"], c["result"]["pidns"] = false, false
	c["result"]["namespacesErr"], c["result"]["pidnsErr"] = "as the cache says", "as the cache says"
	b, _ = json.Marshal(c)
	if err := os.WriteFile(files[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	second, stderr := session()
	if !strings.Contains(second, ownNS) {
		t.Errorf("the second session probed again instead of using the cached verdict: %s", second)
	}
	if !strings.Contains(stderr, "The sandbox cannot use namespaces here (as the cache says)") {
		t.Errorf("the cached verdict's warning was not given at start:\n%s", stderr)
	}
	if after, _ := os.ReadFile(files[0]); string(after) != string(b) {
		t.Errorf("the cached verdict was rewritten: %s", after)
	}

	// A file that does not parse is ignored and replaced by a new probe's verdict.
	if err := os.WriteFile(files[0], []byte("{half"), 0o600); err != nil {
		t.Fatal(err)
	}
	third, _ := session()
	if strings.Contains(third, ownNS) {
		t.Errorf("with a corrupt cache the command did not run in the namespace mode: %s", third)
	}
	if b, _ := os.ReadFile(files[0]); !json.Valid(b) {
		t.Errorf("the corrupt verdict was not rewritten: %s", b)
	}
}
