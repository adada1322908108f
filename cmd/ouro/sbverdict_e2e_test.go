//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// Where no sandbox can be had (forced here with OURO_SANDBOX_MODE=unavailable, as a
// kernel without Landlock would have it), a Bash command is refused with the reason and
// the person's way out, and nothing of it runs; a project's failIfUnavailable: false
// changes nothing; the person's own runs it, without the sandbox, saying so at start
// (issue 27, section 1: never unsandboxed by surprise).
func TestNoSandboxRefusesBashUnlessThePersonAllows(t *testing.T) {
	if !sandbox.RefuseWithoutSandbox {
		t.Skip("this system has no sandbox to refuse without")
	}
	for _, c := range []struct {
		name, user, project string
		runs                bool
	}{
		{"default", "", "", false},
		{"project says false", "", `{"sandbox":{"failIfUnavailable":false}}`, false},
		{"person says false", `{"sandbox":{"failIfUnavailable":false}}`, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.vars = append(e.vars, sandbox.ModeEnv+"="+sandbox.ModeUnavailable)
			if c.user != "" {
				writeFile(t, filepath.Join(e.home, ".ouro", "settings.json"), c.user)
			}
			if c.project != "" {
				writeSettings(t, e.dir, c.project)
			}
			marker := filepath.Join(e.dir, "ran")
			want := "Sandboxed commands are refused rather than run without the sandbox"
			if c.runs {
				want = "ran-it"
			}
			e.fake(
				scripted.Turn{ToolCalls: bash("touch " + marker + " && echo ran-it")},
				scripted.Turn{ExpectContains: want, Text: "done"},
			)
			out, stderr, code := e.run("", "-p", "touch it", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			results := strings.Join(toolResults(t, out), "\n")
			_, err := os.Stat(marker)
			if ran := err == nil; ran != c.runs {
				t.Errorf("the command ran: %v, want %v\nresult: %s\nstderr: %s", ran, c.runs, results, stderr)
			}
			if !c.runs {
				for _, s := range []string{sandbox.ModeEnv + " is unavailable", "sandbox.failIfUnavailable: false", "~/.ouro/settings.json"} {
					if !strings.Contains(results, s) {
						t.Errorf("the refusal lacks %q: %s", s, results)
					}
				}
			} else if !strings.Contains(stderr, "Bash runs without the sandbox") || !strings.Contains(stderr, "sets sandbox.failIfUnavailable: false") {
				t.Errorf("the person was not told at start that Bash runs without the sandbox, and why:\n%s", stderr)
			}
			if c.project != "" && !strings.Contains(stderr, "sandbox.failIfUnavailable false is ignored") {
				t.Errorf("the project's failIfUnavailable was not reported as ignored:\n%s", stderr)
			}
		})
	}
}

// ouro doctor says which mode sandboxed commands run in, and why not a stronger one.
func TestDoctorReportsTheSandboxVerdict(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	for mode, want := range map[string]string{
		sandbox.ModeLandlock:    "Landlock-only mode (forced by OURO_SANDBOX_MODE)",
		sandbox.ModeUnavailable: "on but unavailable: Bash commands that would run in the sandbox are refused (OURO_SANDBOX_MODE is unavailable)",
		"":                      "mode", // the probe's own verdict, whichever this machine gets
	} {
		e := newEnv(t)
		e.vars = append(e.vars, "ANTHROPIC_API_KEY=sk-ant-doctor-test", sandbox.ModeEnv+"="+mode)
		text, stderr, code := e.run("", "doctor")
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s\n%s", mode, code, text, stderr)
		}
		if !strings.Contains(text, want) {
			t.Errorf("%q: doctor does not say %q:\n%s", mode, want, text)
		}
		if mode == "" && !strings.Contains(text, "namespace mode") && !strings.Contains(text, "Landlock-only mode: ") {
			t.Errorf("doctor reports no mode found by the probe:\n%s", text)
		}
	}
}
