//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// withoutKey drops the key e.fake set: only the apiKeyHelper may give one.
func (e *env) withoutKey() {
	var vars []string
	for _, kv := range e.vars {
		if !strings.HasPrefix(kv, "ANTHROPIC_API_KEY=") && !strings.HasPrefix(kv, "ANTHROPIC_AUTH_TOKEN=") {
			vars = append(vars, kv)
		}
	}
	e.vars = vars
}

// keyHelperScript writes a helper printing sk-helper-N (N counting its runs) and returns
// its path and the file counting the runs.
func keyHelperScript(t *testing.T, dir string) (string, string) {
	t.Helper()
	count := filepath.Join(dir, "runs")
	p := filepath.Join(dir, "get-key.sh")
	writeFile(t, p, "#!/bin/sh\nn=$(cat '"+count+"' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '"+count+"'\necho \"  sk-helper-$n  \"\n")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p, count
}

func sentKeys(t *testing.T, srv *fakeserver.Server) []string {
	t.Helper()
	var keys []string
	for i, r := range srv.Requests() {
		k := r.Header.Get("X-Api-Key")
		if r.Header.Get("Authorization") != "Bearer "+k {
			t.Errorf("request %d: X-Api-Key %q but Authorization %q: the helper's key goes both ways", i, k, r.Header.Get("Authorization"))
		}
		keys = append(keys, k)
	}
	return keys
}

// Issue 30 item 8: the user's apiKeyHelper gives the key (no ANTHROPIC_API_KEY); a 401
// runs it again and the request is sent again with the new key; with
// CLAUDE_CODE_API_KEY_HELPER_TTL_MS short, each request asks again, and with the default
// (5 minutes) a session's requests share one key.
func TestAPIKeyHelperFromUserSettings(t *testing.T) {
	read, _ := json.Marshal(map[string]string{"file_path": "go.mod"})
	for _, tc := range []struct {
		name string
		ttl  string
		want []string
	}{
		{"ttl short", "1", []string{"sk-helper-1", "sk-helper-2", "sk-helper-3"}},
		{"ttl default", "", []string{"sk-helper-1", "sk-helper-2", "sk-helper-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			helper, _ := keyHelperScript(t, t.TempDir())
			writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"apiKeyHelper": "`+helper+`"}`)
			srv := e.fake(
				scripted.Turn{Fault: &scripted.Fault{Status: 401, Message: "invalid x-api-key"}},
				scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Read", Input: read}}},
				scripted.Turn{Text: "all done"},
			)
			e.withoutKey()
			if tc.ttl != "" {
				e.vars = append(e.vars, "CLAUDE_CODE_API_KEY_HELPER_TTL_MS="+tc.ttl)
			}
			stdout, stderr, code := e.run("", "-p", "read go.mod")
			if code != 0 || !strings.Contains(stdout, "all done") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			got := sentKeys(t, srv)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("keys sent %q, want %q", got, tc.want)
			}
			if strings.Contains(stdout+stderr, "sk-helper") {
				t.Errorf("a key is shown:\n%s\n%s", stdout, stderr)
			}
		})
	}
}

// A repository's settings may not name an apiKeyHelper: it is not run (nothing it would
// do happens), ouro says why, and the run stops for want of a key.
func TestAPIKeyHelperFromProjectSettingsIsIgnored(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(t.TempDir(), "ran")
	for _, f := range []string{"settings.json", "settings.local.json"} {
		writeFile(t, filepath.Join(e.dir, ".claude", f), `{"apiKeyHelper": "touch `+marker+`; echo sk-evil"}`)
	}
	srv := e.fake(scripted.Turn{Text: "should not be asked"})
	e.withoutKey()
	_, stderr, code := e.run("", "-p", "hi")
	if code == 0 {
		t.Fatalf("ran without a key; stderr: %s", stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the project's apiKeyHelper ran")
	}
	if !strings.Contains(stderr, "apiKeyHelper is ignored") || !strings.Contains(stderr, "ANTHROPIC_API_KEY") {
		t.Errorf("stderr does not say why: %s", stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// A failing helper: the error names it, its exit status and its stderr's first line,
// and shows nothing it printed on stdout.
func TestAPIKeyHelperFailureIsClear(t *testing.T) {
	e := newEnv(t)
	p := filepath.Join(t.TempDir(), "vault-key.sh")
	writeFile(t, p, "#!/bin/sh\necho sk-half-written\necho 'vault: sealed, run vault login' >&2\necho more detail >&2\nexit 7\n")
	os.Chmod(p, 0o755)
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"apiKeyHelper": "`+p+`"}`)
	srv := e.fake(scripted.Turn{Text: "never"})
	e.withoutKey()
	stdout, stderr, code := e.run("", "-p", "hi")
	out := stdout + stderr
	if code == 0 {
		t.Fatalf("exit 0: %s", out)
	}
	for _, want := range []string{"apiKeyHelper", p, "status 7", "vault: sealed, run vault login"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sk-half-written") {
		t.Errorf("the helper's stdout is shown:\n%s", out)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent without a key", n)
	}
}
