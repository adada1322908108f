//go:build unix

package keyhelper

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// script writes a helper script into a temp folder and returns the command naming it.
func script(t *testing.T, body string) (cmd, dir string) {
	t.Helper()
	dir = t.TempDir()
	p := filepath.Join(dir, "get-key.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p, dir
}

// counting prints key-N, N counting the runs, in a file next to it.
const counting = `n=$(cat "$(dirname "$0")/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$(dirname "$0")/n"; printf '  key-%s\n\n' "$n"`

func TestKeyIsCachedForTTLThenAskedAgain(t *testing.T) {
	cmd, _ := script(t, counting)
	h := New(Config{Command: cmd, Source: "/u/settings.json", TTL: time.Minute})
	clock := time.Unix(1000, 0)
	h.now = func() time.Time { return clock }
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if k, err := h.Key(ctx); err != nil || k != "key-1" {
			t.Fatalf("Key = %q, %v; want key-1 (trimmed), from one run", k, err)
		}
	}
	clock = clock.Add(time.Minute)
	if k, err := h.Key(ctx); err != nil || k != "key-2" {
		t.Fatalf("after the TTL Key = %q, %v; want key-2", k, err)
	}
	if h.Runs() != 2 {
		t.Errorf("%d runs, want 2", h.Runs())
	}
}

// Refresh runs the helper when the refused key is the current one, and not when another
// caller already replaced it (two requests refused at once run it once).
func TestRefreshAfterARefusedKey(t *testing.T) {
	cmd, _ := script(t, counting)
	h := New(Config{Command: cmd, Source: "s"})
	ctx := context.Background()
	k1, _ := h.Key(ctx)
	k2, err := h.Refresh(ctx, k1)
	if err != nil || k2 != "key-2" {
		t.Fatalf("Refresh = %q, %v", k2, err)
	}
	if k, _ := h.Refresh(ctx, k1); k != "key-2" || h.Runs() != 2 {
		t.Errorf("a second refresh of the same refused key gave %q after %d runs, want key-2 after 2", k, h.Runs())
	}
}

// A failing helper says which one, from where, its exit status and its stderr's first
// line; never what it printed on stdout.
func TestFailingHelperSaysWhatFailed(t *testing.T) {
	cmd, _ := script(t, "echo sk-secret-partial\necho '' >&2\necho 'vault is sealed' >&2\necho second line >&2\nexit 3\n")
	h := New(Config{Command: cmd, Source: "/home/u/.claude/settings.json"})
	_, err := h.Key(context.Background())
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"apiKeyHelper", cmd, "/home/u/.claude/settings.json", "status 3", "vault is sealed"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "sk-secret") || strings.Contains(msg, "second line") {
		t.Errorf("%q shows stdout or more than the first line", msg)
	}
}

// What the helper prints is data: a value with a line break (which would add headers
// of its choosing) is refused without being quoted; nothing printed is refused too.
func TestOutputIsData(t *testing.T) {
	for name, body := range map[string]string{
		"header injection": `printf 'sk-abc\r\nX-Evil: 1\n'`,
		"nul":              `printf 'sk-abc\000def\n'`,
		"empty":            `printf '\n  \n'`,
	} {
		t.Run(name, func(t *testing.T) {
			cmd, _ := script(t, body)
			_, err := New(Config{Command: cmd, Source: "s"}).Key(context.Background())
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "sk-abc") {
				t.Errorf("the value is quoted: %v", err)
			}
		})
	}
	cmd, _ := script(t, `head -c 70000 /dev/zero | tr '\0' a`)
	if _, err := New(Config{Command: cmd, Source: "s"}).Key(context.Background()); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a huge output: %v", err)
	}
}

// A refresh that fails keeps the last good key (as Claude Code does), with a warning.
func TestFailedRefreshKeepsTheLastKey(t *testing.T) {
	cmd, dir := script(t, `if [ -f "$(dirname "$0")/broken" ]; then echo down >&2; exit 1; fi; echo good-key`)
	var warn bytes.Buffer
	h := New(Config{Command: cmd, Source: "s", TTL: time.Minute, Warn: &warn})
	clock := time.Unix(0, 0)
	h.now = func() time.Time { return clock }
	if k, err := h.Key(context.Background()); err != nil || k != "good-key" {
		t.Fatalf("%q %v", k, err)
	}
	os.WriteFile(filepath.Join(dir, "broken"), nil, 0o644)
	clock = clock.Add(2 * time.Minute)
	if k, err := h.Key(context.Background()); err != nil || k != "good-key" {
		t.Fatalf("%q %v", k, err)
	}
	if !strings.Contains(warn.String(), "down") || strings.Contains(warn.String(), "good-key") {
		t.Errorf("warning %q", warn.String())
	}
	// After a 401 the old key is no use: the failure is the answer.
	if _, err := h.Refresh(context.Background(), "good-key"); err == nil {
		t.Error("a failed refresh after a 401 gave the refused key back")
	}
}

// The helper does not see ouro's own credentials; it sees the settings' env and runs in
// the folder given.
func TestHelperEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ouro-own")
	t.Setenv("OPENAI_API_KEY", "sk-openai-own")
	cmd, dir := script(t, `printf '%s|%s|%s|%s' "${ANTHROPIC_API_KEY-unset}" "${OPENAI_API_KEY-unset}" "$VAULT_ADDR" "$(pwd)"`)
	real, _ := filepath.EvalSymlinks(dir)
	k, err := New(Config{Command: cmd, Source: "s", Env: []string{"VAULT_ADDR=https://vault.example"}, Dir: real}).Key(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := "unset|unset|https://vault.example|" + real; k != want {
		t.Errorf("helper saw %q, want %q", k, want)
	}
}

func TestHelperIsKilledWithItsContext(t *testing.T) {
	cmd, _ := script(t, "sleep 30\n")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := New(Config{Command: cmd, Source: "s"}).Key(ctx)
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

func TestTTLVariable(t *testing.T) {
	for v, want := range map[string]time.Duration{"": DefaultTTL, "60000": time.Minute, "abc": DefaultTTL, "-5": DefaultTTL, "0": DefaultTTL} {
		got, problem := TTL(func(string) string { return v })
		if got != want || (problem != "") != (v != "" && want == DefaultTTL) {
			t.Errorf("%q: %v %q", v, got, problem)
		}
	}
}
