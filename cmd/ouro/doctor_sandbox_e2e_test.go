//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/sandbox"
)

// Issue 31: ouro doctor says which OS sandbox Bash runs in (Landlock on Linux, Seatbelt
// on macOS), and says so when sandbox.filesystem.denyRead is not enforced by it.
func TestDoctorNamesTheSandbox(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("no OS sandbox on this machine")
	}
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".ouro", "settings.json"), `{"sandbox": {"filesystem": {"denyRead": ["~/.ssh"]}}}`)
	r, stderr, _ := runDoctor(t, e)
	detail := ""
	for _, s := range r.Sections {
		if s.Name == "sandbox" {
			for _, f := range s.Files {
				detail += f.Detail
			}
		}
	}
	if want := "on (" + sandbox.Mechanism() + ")"; !strings.Contains(detail, want) {
		t.Errorf("sandbox section says %q, want %q in it\n%s", detail, want, stderr)
	}
	all := strings.Join(r.allWarnings(), "\n")
	notEnforced := strings.Contains(all, "denyRead is not enforced by "+sandbox.Mechanism())
	if notEnforced == sandbox.DeniesReads() {
		t.Errorf("DeniesReads %v, yet the warnings say not enforced: %v:\n%s", sandbox.DeniesReads(), notEnforced, all)
	}
}
