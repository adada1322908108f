package checkup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/doctor"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm/resolve"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/plugin"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/workspace"
)

// fakeLoads stands for the harness's steps: it records which were called and what the
// sandbox step was given.
type fakeLoads struct {
	set      *settings.Settings
	setErr   error
	state    string
	called   []string
	tmpAlive bool // the sandbox's temp dir existed while it was set up
	tmp      string
}

func (f *fakeLoads) Settings(warn io.Writer) (*settings.Settings, error) {
	f.called = append(f.called, "Settings")
	if f.setErr != nil {
		return nil, f.setErr
	}
	fmt.Fprintln(warn, "ouro: WARNING: a settings warning")
	return f.set, nil
}

func (f *fakeLoads) Env(*settings.Settings, io.Writer) func(string) string {
	f.called = append(f.called, "Env")
	return func(string) string { return "" }
}

func (f *fakeLoads) Policy(set *settings.Settings, ws *workspace.Workspace, _ io.Writer) (*permission.Policy, error) {
	f.called = append(f.called, "Policy")
	return permission.NewPolicy(permission.PolicyConfig{Settings: set, Workspace: ws})
}

func (f *fakeLoads) Sandbox(_ *settings.Settings, _ *permission.Policy, _ *workspace.Workspace, tmp string, _ io.Writer) (Sandboxed, error) {
	f.called = append(f.called, "Sandbox")
	_, err := os.Stat(tmp)
	f.tmpAlive, f.tmp = err == nil, tmp
	return Sandboxed{}, nil
}

func (f *fakeLoads) ReportHooks(*hook.Runner, io.Writer) { f.called = append(f.called, "ReportHooks") }

func (f *fakeLoads) Plugins([]string, io.Writer) []plugin.Plugin { return nil }

func (f *fakeLoads) PluginSkills([]plugin.Plugin, io.Writer) []skill.Skill { return nil }

func (f *fakeLoads) PluginAgents([]plugin.Plugin, io.Writer) []subagent.Definition { return nil }

func (f *fakeLoads) ImportCheck(*permission.Policy) memory.ReadCheck {
	f.called = append(f.called, "ImportCheck")
	return nil
}

func (f *fakeLoads) RepoRoot(string) string { return "" }

func (f *fakeLoads) Store(*settings.Settings) (string, error) { return "", nil }

func (f *fakeLoads) StatePath() string { return filepath.Join(f.state, "state.db") }

func dirsFor(t *testing.T) Dirs {
	root := t.TempDir()
	d := Dirs{CWD: filepath.Join(root, "work"), Home: filepath.Join(root, "home"), Config: filepath.Join(root, "user")}
	d.Project = filepath.Join(d.Home, "projects", "work")
	for _, p := range []string{d.CWD, d.Home, d.Config} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func section(t *testing.T, r doctor.Report, name string) doctor.Section {
	t.Helper()
	for _, s := range r.Sections {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no section %q in %+v", name, r.Sections)
	return doctor.Section{}
}

// Every section runs through the harness's steps in a run's order; what a step writes is
// filed under its section; the sandbox is set up in a temp dir that is gone afterwards.
func TestRunCallsTheLoadersInOrder(t *testing.T) {
	d := dirsFor(t)
	f := &fakeLoads{set: &settings.Settings{}, state: d.Home}
	r := Run(Config{Dirs: d, Loads: f,
		Model: resolve.Choice{Name: "claude-haiku-4-5", Provider: scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "unused"}}})}})
	if want := []string{"Settings", "Env", "Policy", "Sandbox", "ReportHooks", "ImportCheck"}; !slices.Equal(f.called, want) {
		t.Errorf("called %v, want %v", f.called, want)
	}
	if r.Fatal() {
		t.Errorf("fatal: %+v", r)
	}
	if s := section(t, r, "settings"); !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "a settings warning") }) {
		t.Errorf("the settings step's warning is not the settings section's: %+v", s)
	}
	if m := section(t, r, "model"); len(m.Files) != 1 || m.Files[0].Path != "--model" || m.Files[0].Detail != "claude-haiku-4-5" {
		t.Errorf("model: %+v", m)
	}
	if sb := section(t, r, "sandbox"); len(sb.Files) != 1 || sb.Files[0].Path != "(default)" || !strings.HasPrefix(sb.Files[0].Detail, "off:") {
		t.Errorf("sandbox: %+v", sb)
	}
	if _, err := os.Stat(f.tmp); !f.tmpAlive || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sandbox temp dir %q: there during setup %v, after: %v", f.tmp, f.tmpAlive, err)
	}
	if st := section(t, r, "store"); len(st.Files) != 1 || st.Files[0].Path != filepath.Join(d.Home, "state.db") || !strings.Contains(st.Files[0].Detail, "made at first use") {
		t.Errorf("store: %+v", st)
	}
}

// Settings that cannot be loaded are fatal, and the sections that need them say they
// were not checked instead of loading anything.
func TestRunWithoutSettings(t *testing.T) {
	d := dirsFor(t)
	f := &fakeLoads{setErr: errors.New("broken settings file"), state: d.Home}
	r := Run(Config{Dirs: d, Loads: f})
	if !r.Fatal() || section(t, r, "settings").Fatal != "broken settings file" {
		t.Fatalf("%+v", r)
	}
	for _, name := range []string{"model", "permissions", "sandbox", "hooks"} {
		s := section(t, r, name)
		if s.Fatal != "" || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "the settings could not be loaded") {
			t.Errorf("%s: %+v", name, s)
		}
	}
	if !slices.Equal(f.called, []string{"Settings"}) {
		t.Errorf("called %v after the settings failed", f.called)
	}
}
