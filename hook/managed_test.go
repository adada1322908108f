package hook_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/settings"
)

// Issue 26, D11: under managed settings' allowManagedHooksOnly the runner keeps its own
// (managed) hooks, and takes none of a skill's or an agent's front matter: each is
// refused with one warning naming the managed file.
func TestManagedHooksOnlyRefusesMore(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("PreToolUse", "Bash", e.script("echo managed >> "+e.path("log"))), func(c *hook.Config) { c.ManagedOnly = "/etc/ouro/managed-settings.json" })
	more := map[string][]settings.HookMatcher{"PreToolUse": {group("Bash", e.script("echo more >> "+e.path("log")))}}
	s, warns, err := r.Scoped(more)
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "allowManagedHooksOnly") || !strings.Contains(warns[0], "/etc/ouro/managed-settings.json") {
		t.Fatalf("Scoped: %v %q", err, warns)
	}
	warns, err = r.Add(more)
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "allowManagedHooksOnly") {
		t.Fatalf("Add: %v %q", err, warns)
	}
	s.PreToolUse(context.Background(), bash("1", "ls"))
	r.PreToolUse(context.Background(), bash("2", "ls"))
	if got := e.read("log"); got != "managed\nmanaged\n" {
		t.Errorf("log %q: only the managed hook may run", got)
	}
}
