package permission

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

// fakeApprover answers every prompt with one answer and keeps the prompts.
type fakeApprover struct {
	answer  Answer
	err     error
	prompts []Prompt
}

func (f *fakeApprover) Approve(_ context.Context, p Prompt) (Answer, error) {
	f.prompts = append(f.prompts, p)
	return f.answer, f.err
}

// fakeHook returns a fixed PreToolUse verdict and counts its calls; its
// PermissionRequest hooks have no opinion.
type fakeHook struct {
	v     HookVerdict
	calls int
}

func (h *fakeHook) PreToolUse(context.Context, tool.Call) HookVerdict {
	h.calls++
	return h.v
}

func (h *fakeHook) PermissionRequest(context.Context, tool.Call) HookVerdict { return HookVerdict{} }

// hookFuncs answers with functions; a nil one has no opinion.
type hookFuncs struct {
	pre, perm func(context.Context, tool.Call) HookVerdict
}

func (h hookFuncs) PreToolUse(ctx context.Context, c tool.Call) HookVerdict {
	if h.pre == nil {
		return HookVerdict{}
	}
	return h.pre(ctx, c)
}

func (h hookFuncs) PermissionRequest(ctx context.Context, c tool.Call) HookVerdict {
	if h.perm == nil {
		return HookVerdict{}
	}
	return h.perm(ctx, c)
}

func TestGateOrder(t *testing.T) {
	e := newEnv(t)
	rs := rules{allow: []string{"Bash(make *)"}, ask: []string{"Bash(git push *)"}, deny: []string{"Bash(curl *)"}}
	const (
		denied   = "deny"
		allowed  = "allow"
		asked    = "ask" // the approver was asked (and said once)
		rejected = "ask+no"
	)
	cases := []struct {
		name    string
		hook    string // the hook's decision
		command string
		want    string
		mode    string
		// sandbox: "in" when autoAllowBashIfSandboxed is on and the command runs in the
		// sandbox, "out" when it is on but the command runs outside (excludedCommands),
		// "leave" when the call asks to leave the sandbox (dangerouslyDisableSandbox).
		sandbox string
	}{
		{"no hook, deny rule", "", "curl x", denied, "", ""},
		{"no hook, ask rule", "", "git push", asked, "", ""},
		{"no hook, allow rule", "", "make all", allowed, "", ""},
		{"no hook, read-only", "", "ls", allowed, "", ""},
		{"no hook, no rule", "", "npm i", asked, "", ""},
		{"hook deny beats allow rule", "deny", "make all", denied, "", ""},
		{"hook deny beats read-only", "deny", "ls", denied, "", ""},
		{"hook allow cannot beat deny rule", "allow", "curl x", denied, "", ""},
		{"hook allow cannot beat ask rule", "allow", "git push", asked, "", ""},
		{"hook allow skips the default ask", "allow", "npm i", allowed, "", ""},
		{"hook allow with allow rule", "allow", "make all", allowed, "", ""},
		{"hook allow cannot beat hard deny", "allow", "rm -rf /", denied, "", ""},
		{"hook ask beats allow rule", "ask", "make all", asked, "", ""},
		{"hook ask beats read-only", "ask", "ls", asked, "", ""},
		{"hook ask and deny rule", "ask", "curl x", denied, "", ""},
		{"hook ask and no rule", "ask", "npm i", asked, "", ""},
		// The mode is step 5: after a hook's ask (step 3) and allow (step 4).
		{"dontAsk: hook allow holds", "allow", "npm i", allowed, "dontAsk", ""},
		{"dontAsk: no hook, no rule", "", "npm i", denied, "dontAsk", ""},
		{"dontAsk: hook ask is a deny", "ask", "make all", denied, "dontAsk", ""},
		{"dontAsk: ask rule is a deny even after a hook allow", "allow", "git push", denied, "dontAsk", ""},
		{"plan: no hook, a command that may write", "", "npm i", denied, "plan", ""},
		{"plan: hook allow holds", "allow", "npm i", allowed, "plan", ""},
		{"plan: hook ask asks", "ask", "npm i", asked, "plan", ""},
		{"plan: deny rule after a hook allow", "allow", "curl x", denied, "plan", ""},
		{"bypass: no rule", "", "npm i", allowed, "bypassPermissions", ""},
		{"bypass: ask rule still asks", "", "git push", asked, "bypassPermissions", ""},
		{"bypass: deny rule still denies", "allow", "curl x", denied, "bypassPermissions", ""},
		{"bypass: hard deny", "allow", "rm -rf /", denied, "bypassPermissions", ""},
		// 5½. sandbox.autoAllowBashIfSandboxed: after deny and ask rules, hooks and plan
		// mode; before dontAsk's refusal; never for a command run outside the sandbox.
		{"sandboxed: no rule", "", "npm i", allowed, "", "in"},
		{"sandboxed: deny rule still denies", "", "curl x", denied, "", "in"},
		{"sandboxed: ask rule still asks", "", "git push", asked, "", "in"},
		{"sandboxed: hook ask still asks", "ask", "npm i", asked, "", "in"},
		{"sandboxed: hook deny still denies", "deny", "npm i", denied, "", "in"},
		{"sandboxed: hard deny", "", "rm -rf /", denied, "", "in"},
		{"sandboxed: a protected path still asks", "", "echo x > .git/hooks/pre-commit", asked, "", "in"},
		{"sandboxed: dontAsk lets it through", "", "npm i", allowed, "dontAsk", "in"},
		{"sandboxed: plan still refuses", "", "npm i", denied, "plan", "in"},
		{"excluded command: asks", "", "npm i", asked, "", "out"},
		{"excluded command: dontAsk refuses", "", "npm i", denied, "dontAsk", "out"},
		{"excluded command: an allow rule allows", "", "make all", allowed, "", "out"},
		// 3. Leaving the sandbox is put to a person, as an ask rule would be.
		{"leaving the sandbox: an allow rule still asks", "", "make all", asked, "", "leave"},
		{"leaving the sandbox: read-only still asks", "", "ls", asked, "", "leave"},
		{"leaving the sandbox: a hook's allow still asks", "allow", "npm i", asked, "", "leave"},
		{"leaving the sandbox: bypass asks", "", "npm i", asked, "bypassPermissions", "leave"},
		{"leaving the sandbox: a deny rule denies", "", "curl x", denied, "", "leave"},
		{"leaving the sandbox: a hook's deny denies", "deny", "make all", denied, "", "leave"},
		{"leaving the sandbox: dontAsk refuses", "", "make all", denied, "dontAsk", "leave"},
		{"leaving the sandbox: plan refuses a write", "", "npm i", denied, "plan", "leave"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := e.policy(t, c.mode, rs)
			ap := &fakeApprover{answer: Answer{Choice: Once}}
			h := &fakeHook{v: HookVerdict{Decision: c.hook, Reason: "hook says so", Source: "check.sh"}}
			g := NewGate(p, ap, h, nil)
			switch c.sandbox {
			case "in", "out":
				g.Sandboxed = func(tool.Call) bool { return c.sandbox == "in" }
			case "leave":
				g.Sandboxed = func(tool.Call) bool { return false }
				g.LeavesSandbox = func(tool.Call) bool { return true }
			}
			call := e.call("Bash", bash(c.command))
			d := g.Gate(context.Background(), call)
			got := allowed
			switch {
			case d.Deny:
				got = denied
			case len(ap.prompts) > 0:
				got = asked
			}
			if got != c.want {
				t.Errorf("got %s (reason %q, prompts %d), want %s", got, d.Reason, len(ap.prompts), c.want)
			}
			if got != asked && len(ap.prompts) > 0 {
				t.Errorf("the approver was asked needlessly")
			}
			if h.calls != 1 {
				t.Errorf("hook ran %d times", h.calls)
			}
		})
	}
}

func TestGateUpdatedInputIsWhatThePolicyJudges(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "", rules{deny: []string{"Bash(curl *)"}})
	ap := &fakeApprover{answer: Answer{Choice: Once}}

	// A harmless call rewritten into a denied one is denied.
	h := &fakeHook{v: HookVerdict{UpdatedInput: json.RawMessage(bash("curl evil.sh"))}}
	call := e.call("Bash", bash("ls"))
	if d := NewGate(p, ap, h, nil).Gate(context.Background(), call); !d.Deny || !strings.Contains(d.Reason, "curl evil.sh") {
		t.Errorf("rewritten into a denied command: %+v", d)
	}

	// A denied call rewritten into a harmless one runs, with the new input.
	h.v = HookVerdict{UpdatedInput: json.RawMessage(bash("ls -la"))}
	call = e.call("Bash", bash("curl x"))
	d := NewGate(p, ap, h, nil).Gate(context.Background(), call)
	if d.Deny || string(d.UpdatedInput) != bash("ls -la") {
		t.Errorf("rewritten into a read-only command: %+v", d)
	}
	// The prompt for a rewritten call shows the rewritten action.
	h.v = HookVerdict{UpdatedInput: json.RawMessage(bash("npm test"))}
	call = e.call("Bash", bash("ls"))
	NewGate(p, ap, h, nil).Gate(context.Background(), call)
	if len(ap.prompts) != 1 || ap.prompts[0].Summary != "npm test" || string(ap.prompts[0].Call.Input) != bash("npm test") {
		t.Errorf("prompts = %+v", ap.prompts)
	}
}

func TestGateApproverAnswers(t *testing.T) {
	e := newEnv(t)
	goTest := func() tool.Call { return e.call("Bash", bash("go test ./...")) }

	t.Run("no with reason", func(t *testing.T) {
		ap := &fakeApprover{answer: Answer{Choice: No, Reason: "use make test"}}
		d := NewGate(e.policy(t, "", rules{}), ap, nil, nil).Gate(context.Background(), goTest())
		if !d.Deny || !strings.Contains(d.Reason, "the user refused go test ./...") || !strings.Contains(d.Reason, "use make test") {
			t.Errorf("%+v", d)
		}
		p := ap.prompts[0]
		if p.Summary != "go test ./..." || p.SuggestedRule != "Bash(go test *)" || !strings.Contains(p.Reach, "no allow rule covers") {
			t.Errorf("prompt = %+v", p)
		}
	})
	t.Run("once asks again next time", func(t *testing.T) {
		ap := &fakeApprover{answer: Answer{Choice: Once}}
		g := NewGate(e.policy(t, "", rules{}), ap, nil, nil)
		g.Gate(context.Background(), goTest())
		if d := g.Gate(context.Background(), goTest()); d.Deny || len(ap.prompts) != 2 {
			t.Errorf("%+v, prompts %d", d, len(ap.prompts))
		}
	})
	t.Run("session", func(t *testing.T) {
		ap := &fakeApprover{answer: Answer{Choice: Session}}
		p := e.policy(t, "", rules{})
		g := NewGate(p, ap, nil, nil)
		g.Gate(context.Background(), goTest())
		other := e.call("Bash", bash("go test -run X ./pkg"))
		if d := g.Gate(context.Background(), other); d.Deny || len(ap.prompts) != 1 {
			t.Errorf("the session rule did not cover the next go test: %+v, prompts %d", d, len(ap.prompts))
		}
		if _, err := os.Stat(p.LocalSettingsPath()); err == nil {
			t.Error("a session answer wrote the settings file")
		}
	})
	t.Run("always", func(t *testing.T) {
		ap := &fakeApprover{answer: Answer{Choice: Always}}
		p := e.policy(t, "", rules{})
		g := NewGate(p, ap, nil, nil)
		edit := e.call("Edit", `{"file_path":"{P}/src/x.go"}`)
		if d := g.Gate(context.Background(), edit); d.Deny {
			t.Fatal(d.Reason)
		}
		data, err := os.ReadFile(p.LocalSettingsPath())
		if err != nil || !strings.Contains(string(data), `"Edit(src/x.go)"`) {
			t.Errorf("settings.local.json = %s (%v)", data, err)
		}
		if d := g.Gate(context.Background(), edit); d.Deny || len(ap.prompts) != 1 {
			t.Errorf("asked again after always: %d prompts", len(ap.prompts))
		}
		os.Remove(p.LocalSettingsPath())
	})
	t.Run("always without a possible rule is once", func(t *testing.T) {
		ap := &fakeApprover{answer: Answer{Choice: Always}}
		p := e.policy(t, "", rules{})
		g := NewGate(p, ap, nil, nil)
		c := e.call("Write", `{"file_path":"{P}/.git/hooks/pre-commit"}`)
		if d := g.Gate(context.Background(), c); d.Deny {
			t.Fatal(d.Reason)
		}
		if ap.prompts[0].SuggestedRule != "" || !strings.Contains(ap.prompts[0].Reach, "protected") {
			t.Errorf("prompt = %+v", ap.prompts[0])
		}
		if _, err := os.Stat(p.LocalSettingsPath()); err == nil {
			t.Error("a rule was saved for a protected path")
		}
		g.Gate(context.Background(), c)
		if len(ap.prompts) != 2 {
			t.Error("a protected write was approved for good")
		}
	})
	t.Run("headless", func(t *testing.T) {
		for _, ap := range []Approver{nil, Headless{}, &Headless{}} {
			d := NewGate(e.policy(t, "", rules{}), ap, nil, nil).Gate(context.Background(), goTest())
			if !d.Deny || !strings.HasPrefix(d.Reason, "headless run: go test ./... would need approval") ||
				!strings.Contains(d.Reason, "Bash(go test *)") || !strings.Contains(d.Reason, "--allowedTools") {
				t.Errorf("%T: %+v", ap, d)
			}
		}
		c := e.call("Edit", `{"file_path":"{P}/.claude/settings.json"}`)
		d := NewGate(e.policy(t, "", rules{}), nil, nil, nil).Gate(context.Background(), c)
		if !d.Deny || !strings.Contains(d.Reason, "protected path") || strings.Contains(d.Reason, "--allowedTools") {
			t.Errorf("headless protected write: %+v", d)
		}
	})
	t.Run("dontAsk refuses a hook's ask", func(t *testing.T) {
		ap := &fakeApprover{answer: Answer{Choice: Once}}
		h := &fakeHook{v: HookVerdict{Decision: "ask", Reason: "double-check"}}
		ls := e.call("Bash", bash("ls"))
		d := NewGate(e.policy(t, "dontAsk", rules{}), ap, h, nil).Gate(context.Background(), ls)
		if !d.Deny || !strings.Contains(d.Reason, "double-check") || len(ap.prompts) != 0 {
			t.Errorf("%+v", d)
		}
	})
	t.Run("approver error", func(t *testing.T) {
		ap := &fakeApprover{err: errors.New("terminal gone")}
		d := NewGate(e.policy(t, "", rules{}), ap, nil, nil).Gate(context.Background(), goTest())
		if !d.Deny || !strings.Contains(d.Reason, "terminal gone") {
			t.Errorf("%+v", d)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ap := &fakeApprover{err: context.Canceled}
		d := NewGate(e.policy(t, "", rules{}), ap, nil, nil).Gate(ctx, goTest())
		if !d.Deny || !strings.Contains(d.Reason, "interrupted") {
			t.Errorf("%+v", d)
		}
	})
}

func TestGateDenialReasons(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "", rules{deny: []string{"Read(./.env)"}})
	g := NewGate(p, nil, &fakeHook{}, nil)
	c := e.call("Read", `{"file_path":"{P}/.env"}`)
	d := g.Gate(context.Background(), c)
	for _, w := range []string{e.proj + "/.env", "Read(./.env)", filepath.Join(e.proj, ".ouro", "settings.json")} {
		if !strings.Contains(d.Reason, w) {
			t.Errorf("reason %q lacks %q", d.Reason, w)
		}
	}
	h := &fakeHook{v: HookVerdict{Decision: "deny", Reason: "no pushes on Fridays"}}
	c = e.call("Bash", bash("git push"))
	d = NewGate(p, nil, h, nil).Gate(context.Background(), c)
	if !strings.Contains(d.Reason, "PreToolUse hook") || !strings.Contains(d.Reason, "git push") || !strings.Contains(d.Reason, "no pushes on Fridays") {
		t.Errorf("hook denial reason %q", d.Reason)
	}
}

func TestGateAuditsEveryDecision(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	a.SetSession("s1")
	p := e.policy(t, "", rules{allow: []string{"Bash(make *)"}, deny: []string{"Bash(curl *)"}})
	ap := &fakeApprover{answer: Answer{Choice: No, Reason: "not now"}}
	hooks := hookFuncs{pre: func(_ context.Context, c tool.Call) HookVerdict {
		if strings.Contains(string(c.Input), "blocked") {
			return HookVerdict{Decision: "deny", Reason: "blocked word", Source: "guard.sh"}
		}
		return HookVerdict{}
	}}
	g := NewGate(p, ap, hooks, a)
	for i, cmd := range []string{"make all", "curl x", "npm i", "echo blocked"} {
		c := e.call("Bash", bash(cmd))
		c.ID = "toolu_" + string(rune('a'+i))
		g.Gate(context.Background(), c)
	}
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	a.Close()
	recs, err := ReadAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, input, decision, source string }{
		{"toolu_a", "make all", "allow", "Bash(make *)"},
		{"toolu_b", "curl x", "deny", "Bash(curl *)"},
		{"toolu_c", "npm i", "deny", "user: no"},
		{"toolu_d", "echo blocked", "deny", "PreToolUse hook guard.sh"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	for i, w := range want {
		r := recs[i]
		if r.Kind != AuditDecision || r.Session != "s1" || r.ToolUseID != w.id || r.Tool != "Bash" || r.Input != w.input ||
			r.Decision != w.decision || !strings.Contains(r.Source, w.source) || r.Time.IsZero() {
			t.Errorf("record %d = %+v, want %+v", i, r, w)
		}
	}
	if !strings.Contains(recs[2].Reason, "not now") {
		t.Errorf("the user's reason is not audited: %+v", recs[2])
	}
	// Writing to a closed audit is reported, not fatal.
	c := e.call("Bash", bash("ls"))
	if d := g.Gate(context.Background(), c); d.Deny {
		t.Error(d.Reason)
	}
	if a.Err() == nil {
		t.Error("a failed audit write was not reported")
	}
}

// outsideCalls records what OnAllowedOutside was told.
type outsideCalls []string

func (o *outsideCalls) record(toolName, path string) { *o = append(*o, toolName+" "+path) }

func TestGateReportsApprovedOutsidePaths(t *testing.T) {
	e := newEnv(t)
	for _, f := range []string{filepath.Join(e.out, "f.txt"), filepath.Join(e.proj, "src", "in.go")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(e.out, "f.txt"), filepath.Join(e.proj, "link")); err != nil {
		t.Fatal(err)
	}
	rs := rules{allow: []string{"Read(/" + e.out + "/allowed.txt)"}, deny: []string{"Read(/" + e.out + "/denied.txt)"}}
	cases := []struct {
		name, tool, in string
		answer         Choice
		hook           string
		want           []string // "" entries are not expected; nil means no call
	}{
		{"approved outside read", "Read", `{"file_path":"{O}/f.txt"}`, Once, "", []string{"Read {O}/f.txt"}},
		{"approved for the session", "Read", `{"file_path":"{O}/f.txt"}`, Session, "", []string{"Read {O}/f.txt"}},
		{"through a symlink: the real path", "Read", `{"file_path":"{O}/../` + filepath.Base(e.proj) + `/link"}`, Once, "", []string{"Read {O}/f.txt"}},
		{"approved outside write", "Write", `{"file_path":"{O}/new.txt","content":"y"}`, Once, "", []string{"Write {O}/new.txt"}},
		{"approved outside edit", "Edit", `{"file_path":"{O}/f.txt","old_string":"x","new_string":"y"}`, Once, "", []string{"Edit {O}/f.txt"}},
		{"approved outside grep", "Grep", `{"pattern":"x","path":"{O}"}`, Once, "", []string{"Grep {O}"}},
		{"approved outside glob by pattern", "Glob", `{"pattern":"{O}/*.txt"}`, Once, "", []string{"Glob {O}"}},
		{"refused outside read", "Read", `{"file_path":"{O}/f.txt"}`, No, "", nil},
		{"rule-allowed outside read", "Read", `{"file_path":"{O}/allowed.txt"}`, Once, "", []string{"Read {O}/allowed.txt"}},
		{"hook-allowed outside read", "Read", `{"file_path":"{O}/f.txt"}`, Once, "allow", []string{"Read {O}/f.txt"}},
		{"denied outside read", "Read", `{"file_path":"{O}/denied.txt"}`, Once, "", nil},
		{"approved inside read (hook asks)", "Read", `{"file_path":"{P}/src/in.go"}`, Once, "ask", nil},
		{"approved inside write", "Write", `{"file_path":"{P}/src/in.go","content":"y"}`, Once, "", nil},
		{"approved bash outside", "Bash", bash("cat " + e.out + "/f.txt > " + e.out + "/g.txt"), Once, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got outsideCalls
			ap := &fakeApprover{answer: Answer{Choice: c.answer}}
			g := NewGate(e.policy(t, "", rs), ap, &fakeHook{v: HookVerdict{Decision: c.hook}}, nil)
			g.OnAllowedOutside = got.record
			call := e.call(c.tool, c.in)
			d := g.Gate(context.Background(), call)
			var want outsideCalls
			for _, w := range c.want {
				want = append(want, strings.NewReplacer("{P}", e.proj, "{O}", e.out).Replace(w))
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("OnAllowedOutside got %q, want %q (decision %+v, asked %d times)", got, want, d, len(ap.prompts))
			}
			if len(want) > 0 && d.Deny {
				t.Fatalf("the approved call was denied: %+v", d)
			}
		})
	}
}

func TestGateSessionApprovalThenRule(t *testing.T) {
	// After "yes, this session" the rule allows the next call: the person is not asked
	// again, and the callback is told each time (making a path reachable twice is
	// harmless).
	e := newEnv(t)
	var got outsideCalls
	ap := &fakeApprover{answer: Answer{Choice: Session}}
	g := NewGate(e.policy(t, "", rules{}), ap, nil, nil)
	g.OnAllowedOutside = got.record
	for range 2 {
		call := e.call("Read", `{"file_path":"{O}/f.txt"}`)
		if d := g.Gate(context.Background(), call); d.Deny {
			t.Fatalf("denied: %+v", d)
		}
	}
	if len(ap.prompts) != 1 || len(got) != 2 || got[0] != "Read "+e.out+"/f.txt" {
		t.Fatalf("asked %d times, callback %q", len(ap.prompts), got)
	}
}

// PermissionRequest hooks answer only what would be put to a person: their allow or deny
// replaces the approver (headless, where the approver refuses, too); without a decision
// the approver is asked. Calls the rules allow or deny never reach them, and their allow
// cannot get past a deny rule or the hard-deny set, even through updatedInput.
func TestGatePermissionRequestHooks(t *testing.T) {
	e := newEnv(t)
	rs := rules{allow: []string{"Bash(make *)"}, ask: []string{"Bash(git push *)"}, deny: []string{"Bash(curl *)"}}
	const (
		denied     = "deny"
		allowed    = "allow"
		approved   = "ask+yes" // the approver was asked and said once
		headlessNo = "headless"
	)
	cases := []struct {
		name     string
		mode     string
		pre      string      // the PreToolUse hook's decision
		answer   HookVerdict // the PermissionRequest hook's
		headless bool
		command  string
		fired    bool   // the PermissionRequest hook ran
		want     string // what happened
		input    string // the input the call runs with, when the hook rewrote it
		source   string // the audited source of the decision
	}{
		{name: "allow answers an ask", answer: HookVerdict{Decision: "allow", Source: "ok.sh"}, command: "npm i", fired: true, want: allowed, source: "PermissionRequest hook ok.sh"},
		{name: "allow answers an ask headless", answer: HookVerdict{Decision: "allow", Source: "ok.sh"}, headless: true, command: "npm i", fired: true, want: allowed, source: "PermissionRequest hook ok.sh"},
		{name: "deny refuses an ask", answer: HookVerdict{Decision: "deny", Reason: "not today", Source: "no.sh"}, command: "npm i", fired: true, want: denied, source: "PermissionRequest hook no.sh"},
		{name: "no decision asks the approver", command: "npm i", fired: true, want: approved, source: "user: once"},
		{name: "no decision headless is refused", headless: true, command: "npm i", fired: true, want: headlessNo, source: "headless"},
		{name: "allow answers an ask rule", answer: HookVerdict{Decision: "allow"}, command: "git push", fired: true, want: allowed, source: "PermissionRequest hook"},
		{name: "allow answers a PreToolUse ask", pre: "ask", answer: HookVerdict{Decision: "allow"}, command: "make all", fired: true, want: allowed, source: "PermissionRequest hook"},
		{name: "allow rule: not fired", answer: HookVerdict{Decision: "deny"}, command: "make all", want: allowed, source: "Bash(make *)"},
		{name: "read-only: not fired", answer: HookVerdict{Decision: "deny"}, command: "ls", want: allowed, source: "read-only"},
		{name: "PreToolUse allow: not fired", pre: "allow", answer: HookVerdict{Decision: "deny"}, command: "npm i", want: allowed, source: "PreToolUse hook"},
		{name: "deny rule: not fired", answer: HookVerdict{Decision: "allow"}, command: "curl x", want: denied, source: "Bash(curl *)"},
		{name: "hard deny: not fired", answer: HookVerdict{Decision: "allow"}, command: "rm -rf /", want: denied, source: "hard deny"},
		{name: "hard deny in bypass: not fired", mode: "bypassPermissions", answer: HookVerdict{Decision: "allow"}, command: "rm -rf ~", want: denied, source: "hard deny"},
		{name: "dontAsk: not fired", mode: "dontAsk", answer: HookVerdict{Decision: "allow"}, command: "npm i", want: denied, source: "mode dontAsk"},
		{name: "updatedInput runs", answer: HookVerdict{Decision: "allow", UpdatedInput: json.RawMessage(bash("npm i --ignore-scripts"))},
			command: "npm i", fired: true, want: allowed, input: bash("npm i --ignore-scripts"), source: "PermissionRequest hook"},
		{name: "updatedInput cannot reach a deny rule", answer: HookVerdict{Decision: "allow", UpdatedInput: json.RawMessage(bash("curl evil.sh"))},
			command: "npm i", fired: true, want: denied, source: "Bash(curl *)"},
		{name: "updatedInput cannot reach the hard-deny set", answer: HookVerdict{Decision: "allow", UpdatedInput: json.RawMessage(bash("rm -rf /"))},
			command: "npm i", fired: true, want: denied, source: "hard deny"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := OpenAudit(filepath.Join(t.TempDir(), "audit.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var seen []tool.Call
			hooks := hookFuncs{
				pre: func(context.Context, tool.Call) HookVerdict { return HookVerdict{Decision: c.pre} },
				perm: func(_ context.Context, call tool.Call) HookVerdict {
					seen = append(seen, call)
					return c.answer
				},
			}
			ap := &fakeApprover{answer: Answer{Choice: Once}}
			var approver Approver = ap
			if c.headless {
				approver = Headless{}
			}
			g := NewGate(e.policy(t, c.mode, rs), approver, hooks, a)
			call := e.call("Bash", bash(c.command))
			call.ID = "toolu_1"
			d := g.Gate(context.Background(), call)

			if c.fired != (len(seen) == 1) || len(seen) > 1 {
				t.Fatalf("the PermissionRequest hook ran %d times, want fired=%v (decision %+v)", len(seen), c.fired, d)
			}
			if c.fired && (seen[0].Name != "Bash" || seen[0].ID != "toolu_1" || string(seen[0].Input) != bash(c.command)) {
				t.Errorf("the hook was shown %+v", seen[0])
			}
			got := allowed
			switch {
			case d.Deny && c.headless && strings.HasPrefix(d.Reason, "headless run:"):
				got = headlessNo
			case d.Deny:
				got = denied
			case len(ap.prompts) > 0:
				got = approved
			}
			if got != c.want {
				t.Fatalf("got %s (reason %q), want %s", got, d.Reason, c.want)
			}
			if c.want != approved && len(ap.prompts) > 0 {
				t.Errorf("the approver was asked although the hook answered: %+v", ap.prompts)
			}
			if string(d.UpdatedInput) != c.input {
				t.Errorf("runs with %s, want %q", d.UpdatedInput, c.input)
			}
			if got == denied && c.answer.Reason != "" && c.fired && !strings.Contains(d.Reason, c.answer.Reason) {
				t.Errorf("the hook's message is not in the denial: %q", d.Reason)
			}
			a.Close()
			recs, err := ReadAudit(a.Path())
			if err != nil {
				t.Fatal(err)
			}
			wantDecision := "allow"
			if d.Deny {
				wantDecision = "deny"
			}
			if len(recs) != 1 || recs[0].Decision != wantDecision || recs[0].ToolUseID != "toolu_1" || !strings.Contains(recs[0].Source, c.source) {
				t.Fatalf("audit = %+v, want one %s by %q", recs, wantDecision, c.source)
			}
		})
	}
}
