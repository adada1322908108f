//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

type doctorReport struct {
	Sections []struct {
		Name  string `json:"name"`
		Files []struct {
			Path     string   `json:"path"`
			Status   string   `json:"status"`
			Detail   string   `json:"detail"`
			Warnings []string `json:"warnings"`
		} `json:"files"`
		Warnings []string `json:"warnings"`
		Fatal    string   `json:"fatal"`
	} `json:"sections"`
	Fatal    bool `json:"fatal"`
	Warnings int  `json:"warnings"`
}

// status finds the file whose path ends with suffix: its status in the first section
// that lists it, and its warnings in every section.
func (r doctorReport) status(suffix string) (status string, warns string) {
	var ws []string
	for _, s := range r.Sections {
		for _, f := range s.Files {
			if strings.HasSuffix(f.Path, suffix) {
				if status == "" {
					status = f.Status
				}
				ws = append(ws, f.Warnings...)
			}
		}
	}
	return status, strings.Join(ws, "\n")
}

// allWarnings are every warning of the report.
func (r doctorReport) allWarnings() []string {
	var out []string
	for _, s := range r.Sections {
		out = append(out, s.Warnings...)
		for _, f := range s.Files {
			out = append(out, f.Warnings...)
		}
	}
	return out
}

func runDoctor(t *testing.T, e *env) (doctorReport, string, int) {
	t.Helper()
	out, stderr, code := e.run("", "doctor", "--json")
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, stderr)
	}
	return r, stderr, code
}

// Issue 13, "Done when": ouro doctor loads every source as a run would and says, file by
// file, what was loaded, what was skipped and why. Its warnings are a run's: every
// warning a real run prints at start is in the report, under the file it names. Hostile
// inputs (a symlink loop and a link to / in the rules folder, a binary rule, an invalid
// glob, a huge instruction file, a broken user settings file) are reported, not fatal.
func TestDoctorReportsEveryFile(t *testing.T) {
	e := newEnv(t)
	rulesProject(t, e)
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{
		"permissions": {"allow": ["Bash(go test *)"], "deny": ["Bassh(rm *)"]},
		"sandbox": {"excludedCommands": ["docker"]},
		"hooks": {"MessageDisplay": [{"hooks": [{"type": "command", "command": "touch `+filepath.Join(e.dir, "HOOK-RAN")+`"}]}]}}`)
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"permissions": `)
	writeFile(t, filepath.Join(e.dir, ".claude", "agents", "nodesc.md"), "---\nname: nodesc\n---\nI have no description.")
	writeFile(t, filepath.Join(e.dir, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code. Examples: user: review this assistant: ok\n---\nReview.")
	writeFile(t, filepath.Join(e.dir, ".claude", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploys the app\n---\nSteps.")
	writeFile(t, filepath.Join(e.dir, "CLAUDE.local.md"), strings.Repeat("big local notes\n", 20000))
	managed := filepath.Join(e.home, "managed-settings.json")
	writeFile(t, managed, `{"permissions": {"deny": ["WebFetch"]}}`)
	e.vars = append(e.vars, "OURO_MANAGED_SETTINGS="+managed)

	r, stderr, code := runDoctor(t, e)
	// No key is set: that alone stops a run (issue 25), every other problem is a warning.
	for _, s := range r.Sections {
		if s.Fatal != "" && (s.Name != "model" || !strings.Contains(s.Fatal, "no API key")) {
			t.Errorf("section %s is fatal: %s", s.Name, s.Fatal)
		}
	}
	if code != 1 || !r.Fatal {
		t.Fatalf("exit %d, fatal %v\n%s", code, r.Fatal, stderr)
	}
	want := map[string][2]string{ // file → status, a word of its warnings
		"/.claude/settings.json":                     {"loaded", `"MessageDisplay"`},
		"/CLAUDE.md":                                 {"loaded", ""},
		"/.claude/rules/style.md":                    {"loaded", ""},
		"/.claude/rules/golang/testing.md":           {"on demand", ""},
		"/.claude/rules/bad.md":                      {"skipped", "src/[x"},
		"/.claude/rules/blob.md":                     {"skipped", "binary"},
		"/.claude/rules/root":                        {"skipped", "outside the project"},
		"/CLAUDE.local.md":                           {"loaded", "only the first"},
		"/.claude/agents/nodesc.md":                  {"skipped", "no description"},
		"/.claude/agents/reviewer.md":                {"loaded", ""},
		"/.claude/skills/deploy/SKILL.md":            {"loaded", ""},
		"/managed-settings.json":                     {"loaded", ""},
		"/pkg/CLAUDE.md":                             {"on demand", ""},
		filepath.Join(".claude", "rules", "mine.md"): {"loaded", ""},
	}
	for suffix, w := range want {
		st, warns := r.status(suffix)
		if st != w[0] || !strings.Contains(warns, w[1]) {
			t.Errorf("%s: status %q (want %q), warnings %q (want %q)", suffix, st, w[0], warns, w[1])
		}
	}
	all := strings.Join(r.allWarnings(), "\n")
	if st, w := r.status(filepath.Join(e.home, ".claude", "settings.json")); st != "skipped" || !strings.Contains(w, "invalid JSON") {
		t.Errorf("the broken user settings file: %q %q", st, w)
	}
	for _, s := range []string{"Bassh", "user settings file is skipped", `"docker" outside the sandbox`} {
		if !strings.Contains(all, s) {
			t.Errorf("no warning about %s in:\n%s", s, all)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "HOOK-RAN")); err == nil {
		t.Errorf("doctor ran a hook")
	}
	if _, err := os.Stat(filepath.Join(e.home, ".ouro", "projects")); err == nil {
		t.Errorf("doctor created session state")
	}

	// A run prints no start-up warning that doctor did not report.
	e.fake(scripted.Turn{Text: "ok"})
	_, runErr, code := e.run("", "-p", "hi")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, runErr)
	}
	if !strings.Contains(runErr, "src/[x") || !strings.Contains(runErr, "Bassh") || !strings.Contains(runErr, `"MessageDisplay"`) {
		t.Fatalf("the run did not warn as expected:\n%s", runErr)
	}
	for _, line := range strings.Split(runErr, "\n") {
		line = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(line), "ouro: "), "WARNING: ")
		if line != "" && !strings.Contains(all, line) {
			t.Errorf("the run warned %q, which doctor did not report", line)
		}
	}

	text, _, _ := e.run("", "doctor")
	for _, s := range []string{"on demand", "skipped", "warning: ", "A run would start, with "} {
		if !strings.Contains(text, s) {
			t.Errorf("the text report lacks %q:\n%s", s, text)
		}
	}
}

// A broken project settings file is skipped with a warning: doctor reports it skipped
// and the run goes on. A broken managed settings file stops a run; doctor says so and
// exits 1, and still reports the other sources.
func TestDoctorFatalProjectSettings(t *testing.T) {
	e := newEnv(t)
	e.vars = append(e.vars, "ANTHROPIC_API_KEY=sk-ant-doctor-test") // with no key, doctor exits 1 anyway
	project := filepath.Join(e.dir, ".claude", "settings.json")
	writeFile(t, project, `{"permissions": {"allow": "Bash"}}`)
	writeFile(t, filepath.Join(e.dir, "CLAUDE.md"), "hello")
	r, stderr, code := runDoctor(t, e)
	if code != 0 || r.Fatal {
		t.Fatalf("a broken project file: exit %d, fatal %v\n%s", code, r.Fatal, stderr)
	}
	if st, w := r.status(project); st != "skipped" || !strings.Contains(w, "permissions.allow must be a list") {
		t.Errorf("the broken project settings file: %q %q", st, w)
	}
	e.fake(scripted.Turn{Text: "ran"})
	if out, runErr, runCode := e.run("", "-p", "hi"); runCode != 0 || out != "ran\n" || !strings.Contains(runErr, "project settings file is skipped") {
		t.Errorf("a run: exit %d, out %q, stderr %q", runCode, out, runErr)
	}

	managed := filepath.Join(e.home, "managed.json")
	writeFile(t, managed, `{"permissions": {"allow": "Bash"}}`)
	e.vars = append(e.vars, "OURO_MANAGED_SETTINGS="+managed)
	r, stderr, code = runDoctor(t, e)
	if code != 1 || !r.Fatal || !strings.Contains(stderr, "stops ouro from starting") {
		t.Fatalf("a broken managed file: exit %d, fatal %v\n%s", code, r.Fatal, stderr)
	}
	if r.Sections[0].Name != "settings" || !strings.Contains(r.Sections[0].Fatal, "managed.json") {
		t.Errorf("settings section: %+v", r.Sections[0])
	}
	if st, _ := r.status("/CLAUDE.md"); st != "loaded" {
		t.Errorf("CLAUDE.md: %q", st)
	}
	_, runErr, runCode := e.run("", "-p", "hi")
	if runCode == 0 || !strings.Contains(runErr, r.Sections[0].Fatal) {
		t.Errorf("a run: exit %d, stderr %q; doctor said %q", runCode, runErr, r.Sections[0].Fatal)
	}
	text, _, code := e.run("", "doctor")
	if code != 1 || !strings.Contains(text, "FATAL: ") {
		t.Errorf("text: exit %d\n%s", code, text)
	}
}
