package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/trust"
)

// A project's statusLine runs only in a folder the person trusts, the rule every project
// hook starts under; the person's own runs anywhere. What runs goes through the
// session's hooks, and the input the session gives names its own ids and places.
func TestStatusLineTrustRule(t *testing.T) {
	home, cwd, config := t.TempDir(), t.TempDir(), t.TempDir()
	cwd, _ = filepath.EvalSymlinks(cwd)
	if err := os.MkdirAll(filepath.Join(cwd, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(cwd, "ran")
	os.WriteFile(filepath.Join(cwd, ".claude", "settings.json"), []byte(`{"statusLine": {"type": "command", "command": "touch ran; echo project line"}}`), 0o644)
	withConfig := func(o *Options) { o.Dirs.UserConfig = config }
	s, _ := open(t, home, cwd, []scripted.Turn{{Text: "x"}}, withConfig)
	sl, run, why := s.StatusLine()
	if run != nil || !sl.Project || !strings.Contains(why, "not trusted") || !strings.Contains(why, filepath.Join(cwd, ".claude", "settings.json")) {
		t.Fatalf("an untrusted project's status line: %+v %v %q", sl, run, why)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the untrusted command ran")
	}

	if err := trust.Accept(config, cwd); err != nil {
		t.Fatal(err)
	}
	s2, _ := open(t, home, cwd, []scripted.Turn{{Text: "x"}}, withConfig)
	sl, run, why = s2.StatusLine()
	if run == nil || why != "" {
		t.Fatalf("a trusted project's status line: %+v %q", sl, why)
	}
	out, err := run.Command(context.Background(), sl.Command, []byte("{}"), 5*time.Second)
	if err != nil || strings.TrimSpace(out) != "project line" {
		t.Fatalf("ran: %q %v", out, err)
	}
	in := s2.StatusInput()
	if in.SessionID != s2.ID() || in.TranscriptPath != s2.TranscriptPath() || in.CWD != cwd || in.Workspace.ProjectDir != cwd || in.Model.ID != "scripted" {
		t.Fatalf("input %+v", in)
	}

	// The person's own statusLine runs in an untrusted folder too.
	other, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(config, ".claude"), 0o755)
	os.WriteFile(filepath.Join(config, ".claude", "settings.json"), []byte(`{"statusLine": {"type": "command", "command": "echo mine"}}`), 0o644)
	s3, _ := open(t, home, other, []scripted.Turn{{Text: "x"}}, withConfig)
	if sl, run, why := s3.StatusLine(); run == nil || sl.Project || why != "" || sl.Command != "echo mine" {
		t.Fatalf("the user's status line: %+v %q", sl, why)
	}
}
