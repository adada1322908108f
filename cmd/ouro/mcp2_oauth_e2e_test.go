//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mcpauth/authtest"
)

// The OAuth life of a remote server, against an in-process authorization server: a
// session reports it as needing a login (and never opens a browser); `ouro mcp login`
// registers, sends the user to the authorization page (the test is the browser), takes
// the redirect on its loopback listener and saves the token, 0600, in ouro's home and not
// in the project; sessions then use it, refresh it when it expires (saving the new one),
// and fall back to needs-auth when it is revoked; `ouro mcp logout` forgets it.
func TestMCPOAuthE2E(t *testing.T) {
	as := authtest.New()
	defer as.Close()
	e := newEnv(t)
	if out, errOut, code := e.run("", "mcp", "add", "-s", "user", "-t", "http", "remote", as.URL()+"/mcp"); code != 0 {
		t.Fatalf("mcp add: %d %s %s", code, out, errOut)
	}
	status := func() (string, string) {
		e.fake(scripted.Turn{Text: "ok"})
		out, errOut, code := e.run("", "-p", "hi", "--output-format", "stream-json")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		return serverStatus(initLine(t, out))["remote"], errOut
	}
	if st, errOut := status(); st != "needs-auth" || !strings.Contains(errOut, "ouro mcp login remote") {
		t.Fatalf("before login: %q\n%s", st, errOut)
	}
	if out, _, _ := e.run("", "mcp", "list"); !strings.Contains(out, "Needs authentication (ouro mcp login remote)") {
		t.Fatalf("mcp list: %s", out)
	}
	e.fake(scripted.Turn{Text: "hi"})
	if out, _, _ := e.run("hello\n/mcp\n/exit\n"); !strings.Contains(out, "remote (http, user): needs-auth") ||
		!strings.Contains(out, "needs an OAuth login: run `ouro mcp login remote`") {
		t.Fatalf("/mcp: %s", out)
	}
	if ev := as.Events(); len(ev) != 0 {
		t.Fatalf("a session started a login: %v", ev)
	}

	login(t, e, as)
	files, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "mcp-auth", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v", fi.Mode())
	}
	if fi, _ := os.Stat(filepath.Dir(files[0])); fi.Mode().Perm() != 0o700 {
		t.Fatalf("token folder mode %v", fi.Mode())
	}
	var saved struct {
		Token struct {
			AccessToken string    `json:"access_token"`
			Expiry      time.Time `json:"expiry"`
		} `json:"token"`
	}
	readSaved := func() {
		data, _ := os.ReadFile(files[0])
		if err := json.Unmarshal(data, &saved); err != nil {
			t.Fatal(err)
		}
	}
	readSaved()
	first := saved.Token.AccessToken
	if !strings.HasPrefix(first, "at-") {
		t.Fatalf("saved token %+v", saved)
	}
	if err := filepath.Walk(e.dir, func(p string, _ os.FileInfo, _ error) error {
		if data, _ := os.ReadFile(p); strings.Contains(string(data), first) {
			t.Errorf("the token is in the project: %s", p)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	call := func() string {
		srv := e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__remote__whoami", `{}`)}}, scripted.Turn{Text: "done"})
		out, errOut, code := e.run("", "-p", "who", "--output-format", "stream-json", "--allowedTools", "mcp__remote")
		if code != 0 || serverStatus(initLine(t, out))["remote"] != "connected" {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		text, _ := mcpToolResults(srv)
		return text
	}
	if text := call(); !strings.Contains(text, "token "+first) {
		t.Fatalf("the call did not carry the saved token: %s", text)
	}

	// The token expires: the next session refreshes it and keeps the new one.
	data, _ := os.ReadFile(files[0])
	var raw map[string]any
	_ = json.Unmarshal(data, &raw)
	raw["token"].(map[string]any)["expiry"] = time.Now().Add(-time.Hour).Format(time.RFC3339)
	data, _ = json.Marshal(raw)
	if err := os.WriteFile(files[0], data, 0o600); err != nil {
		t.Fatal(err)
	}
	text := call()
	readSaved()
	if saved.Token.AccessToken == first || !strings.Contains(text, "token "+saved.Token.AccessToken) {
		t.Fatalf("no refresh: saved %q, call %s", saved.Token.AccessToken, text)
	}
	if ev := as.Events(); ev[len(ev)-1] != "refresh" {
		t.Fatalf("events %v", ev)
	}

	// Revoked: back to needs-auth, no browser.
	as.Revoke()
	n := len(as.Events())
	if st, _ := status(); st != "needs-auth" {
		t.Fatalf("after revocation: %q", st)
	}
	if ev := as.Events(); len(ev) != n {
		t.Fatalf("a session started a login: %v", ev[n:])
	}
	if out, _, code := e.run("", "mcp", "logout", "remote"); code != 0 || !strings.Contains(out, "Logged out of remote") {
		t.Fatalf("logout: %d %s", code, out)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Fatalf("the token file is still there: %v", err)
	}
}

// login runs `ouro mcp login remote`, acting as the user's browser: it opens the URL the
// command prints, which the authorization server answers with the redirect to ouro's
// loopback listener.
func login(t *testing.T, e *env, as *authtest.Server) {
	t.Helper()
	c := e.cmd("mcp", "login", "remote", "--timeout", "30s")
	stderr, _ := c.StderrPipe()
	var out strings.Builder
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	urlRe := regexp.MustCompile(`^\s+(http://\S+/authorize\?\S+)$`)
	sc := bufio.NewScanner(stderr)
	var said []string
	for sc.Scan() {
		said = append(said, sc.Text())
		if m := urlRe.FindStringSubmatch(sc.Text()); m != nil {
			resp, err := http.Get(m[1])
			if err != nil {
				t.Errorf("the browser: %v", err)
			} else {
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("the loopback listener answered %s", resp.Status)
				}
			}
		}
	}
	if err := c.Wait(); err != nil || !strings.Contains(out.String(), "Logged in to remote (1 tools)") {
		t.Fatalf("login: %v\n%s\n%s\nauthorization server: %v", err, out.String(), strings.Join(said, "\n"), as.Events())
	}
}

// In the REPL: the server needs a login, /mcp login runs it ($BROWSER opens the URL: a
// script that fetches it, as the authorization page approves at once), the server
// reconnects with the token and its tool works in the next turn; `ouro mcp get` shows
// the login.
func TestMCPOAuthREPLLoginE2E(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("needs curl to play the browser")
	}
	as := authtest.New()
	defer as.Close()
	e := newEnv(t)
	browser := filepath.Join(t.TempDir(), "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nexec "+curl+" -s -L -o /dev/null \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.vars = append(e.vars, "BROWSER="+browser)
	if out, errOut, code := e.run("", "mcp", "add", "-s", "user", "-t", "http", "remote", as.URL()+"/mcp"); code != 0 {
		t.Fatalf("mcp add: %d %s %s", code, out, errOut)
	}
	if _, errOut, code := e.run("", "mcp", "add", "-t", "sse", "--client-id", "abc", "legacy", as.URL()+"/sse"); code == 0 ||
		!strings.Contains(errOut, "for OAuth logins to http servers") {
		t.Fatalf("--client-id on an sse server: %d %s", code, errOut)
	}
	srv := e.fake(
		scripted.Turn{Text: "hello"},
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__remote__whoami", `{}`)}},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("hi\n/mcp\n/mcp login remote\nwho am i\n/exit\n", "--allowedTools", "mcp__remote")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"remote (http, user): needs-auth", "/mcp login remote in the REPL",
		"To log in to remote, open this URL", "remote: connected (1 tools)"} {
		if !strings.Contains(out, want) {
			t.Errorf("REPL output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
	if text, _ := mcpToolResults(srv); !strings.Contains(text, "token at-") {
		t.Fatalf("the call after the login: %s", text)
	}
	if out, _, _ := e.run("", "mcp", "get", "remote"); !strings.Contains(out, "OAuth: logged in, token expires") {
		t.Fatalf("mcp get: %s", out)
	}
}
