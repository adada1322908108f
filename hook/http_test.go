package hook_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/settings"
)

// An http hook receives the event's JSON by POST, with its headers ($VAR expanded only
// for allowedEnvVars); its JSON answer decides as a command hook's does; a failing server
// is a non-blocking error.
func TestHTTPHooks(t *testing.T) {
	t.Setenv("HOOK_TOKEN", "s3cret")
	t.Setenv("OTHER_SECRET", "never-sent")
	var got map[string]any
	var auth, other string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &got)
		auth, other = r.Header.Get("Authorization"), r.Header.Get("X-Other")
		if strings.Contains(string(body), "rm -rf") {
			w.Write([]byte(`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no deletions"}}`))
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("boom"))
	}))
	defer srv.Close()
	r, err := hook.New(hook.Config{ProjectDir: t.TempDir(), SessionID: "s1", Hooks: map[string][]settings.HookMatcher{
		"PreToolUse": {{Matcher: "Bash", Hooks: []settings.HookCommand{{Type: "http", URL: srv.URL + "/hook",
			Headers:        map[string]string{"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${OTHER_SECRET}"},
			AllowedEnvVars: []string{"HOOK_TOKEN"}}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	v := r.PreToolUse(context.Background(), bash("toolu_1", "rm -rf build"))
	if v.Decision != "deny" || !strings.Contains(v.Reason, "no deletions") {
		t.Fatalf("verdict %+v", v)
	}
	if got["hook_event_name"] != "PreToolUse" || got["tool_name"] != "Bash" || got["session_id"] != "s1" {
		t.Errorf("payload %v", got)
	}
	if auth != "Bearer s3cret" || other != "" {
		t.Errorf("headers: authorization %q, x-other %q", auth, other)
	}
	if v := r.PreToolUse(context.Background(), bash("toolu_2", "ls")); v.Decision != "" {
		t.Errorf("a failing server decided: %+v", v)
	}
}
