package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ouroagent/ouro"

// pkg is what go list says of one package: what it imports itself and everything it
// builds on.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// apart says a package must not build on another at all, not even through a third:
// a lower chapter reaches a higher one through a small interface of its own.
var apart = []struct{ from, to, why string }{
	{"tools", "background", "the shell tool (s02) starts background commands through tools.CommandStarter"},
	{"subagent", "background", "subagents (s06) start background children through subagent.AgentStarter"},
	{"background", "agent", "background work (s11) is a service; its stop seam is mechanism.Waiter"},
	{"guard", "subagent", "the guard (s03/s04) learns whose turn a call is and where a child works through guard.Config"},
	{"guard", "team", "the guard (s03/s04) learns whose ask a prompt is through guard.Config.Teammate"},
	{"guard", "goal", "the guard's judge (s04) is told what impossible means through guard.JudgeConfig"},
}

// violations lists every arrow of pkgs that runs against the chapter order.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			continue
		}
		for _, r := range apart {
			if rel == r.from && slices.Contains(p.Deps, module+"/"+r.to) {
				out = append(out, r.from+" builds on "+r.to+": "+r.why)
			}
		}
		// internal/ holds what every chapter may use, so it uses none of them.
		if rel == "internal" || strings.HasPrefix(rel, "internal/") {
			for _, imp := range p.Imports {
				irel, ok := strings.CutPrefix(imp, module+"/")
				if ok && irel != "internal" && !strings.HasPrefix(irel, "internal/") {
					out = append(out, rel+" imports "+irel+": a package under internal/ imports no chapter of the project")
				}
			}
		}
	}
	return out
}

// list runs go list over the whole module for the platform the test runs on.
func list(t *testing.T) []pkg {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Fatalf("no go command to list the packages with: %v", err)
		}
	}
	cmd := exec.Command(goBin, "list", "-json=ImportPath,Imports,Deps", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestChapterOrderHolds(t *testing.T) {
	pkgs := list(t)
	var seen []string
	for _, p := range pkgs {
		seen = append(seen, p.ImportPath)
	}
	// A listing that lost the packages the rules are about would pass for nothing.
	for _, want := range []string{"tools", "subagent", "background", "agent", "internal/frontmatter", "settings", "guard"} {
		if !slices.Contains(seen, module+"/"+want) {
			t.Fatalf("go list did not list %s (%d packages listed)", want, len(pkgs))
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// The rules catch each arrow they are about, directly or through a third package, and
// leave alone what they do not forbid.
func TestViolationsCatchEachArrow(t *testing.T) {
	m := func(s ...string) []string {
		for i := range s {
			s[i] = module + "/" + s[i]
		}
		return s
	}
	bad := []pkg{
		{ImportPath: module + "/tools", Imports: m("tool"), Deps: m("tool", "background")},
		{ImportPath: module + "/subagent", Imports: m("background"), Deps: m("background")},
		{ImportPath: module + "/background", Imports: m("mechanism"), Deps: m("agent", "mechanism")},
		{ImportPath: module + "/internal/frontmatter", Imports: m("settings"), Deps: m("settings")},
		{ImportPath: module + "/guard", Imports: m("hook"), Deps: m("hook", "team")},
	}
	got := violations(bad)
	for _, want := range []string{"tools builds on background", "subagent builds on background", "background builds on agent", "internal/frontmatter imports settings", "guard builds on team"} {
		if !slices.ContainsFunc(got, func(v string) bool { return strings.HasPrefix(v, want) }) {
			t.Errorf("missed %q; got %q", want, got)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d violations, want 5: %q", len(got), got)
	}
	good := []pkg{
		{ImportPath: module + "/tools", Imports: m("tool", "internal/bgtask"), Deps: m("tool", "internal/bgtask")},
		{ImportPath: module + "/harness", Imports: m("background", "agent"), Deps: m("background", "agent")},
		{ImportPath: module + "/internal/textcut", Imports: []string{"unicode/utf8"}},
		{ImportPath: module + "/internal/bgtask", Imports: []string{"context"}},
		{ImportPath: "example.com/other/internal/x", Imports: m("settings")},
	}
	if got := violations(good); len(got) != 0 {
		t.Errorf("allowed arrows reported: %q", got)
	}
}
