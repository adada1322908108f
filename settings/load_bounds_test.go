//go:build unix

package settings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/internal/regfile"
)

// bad lays out one kind of unusable settings file at path.
var badFiles = map[string]func(t *testing.T, path string) (want string){
	"broken JSON": func(t *testing.T, path string) string {
		write(t, path, "{\n  \"permissions\": {\"allow\": [\"Read\",]}\n}")
		return ":2:"
	},
	"too large": func(t *testing.T, path string) string {
		write(t, path, `{"model": "`+strings.Repeat("x", regfile.MaxConfig)+`"}`)
		return "larger than 1 MiB"
	},
	"named pipe": func(t *testing.T, path string) string {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
		return "a named pipe, not a regular file"
	},
	"device": func(t *testing.T, path string) string {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
		return "a character device"
	},
	"wrong type": func(t *testing.T, path string) string {
		write(t, path, `{"permissions": {"allow": "Read"}}`)
		return "permissions.allow must be a list"
	},
}

// loadSoon is Load with a deadline: a file that hangs the read fails the test.
func loadSoon(t *testing.T, o LoadOptions) (*Settings, error) {
	t.Helper()
	type res struct {
		s   *Settings
		err error
	}
	ch := make(chan res, 1)
	go func() { s, err := Load(o); ch <- res{s, err} }()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-time.After(10 * time.Second):
		t.Fatal("Load hangs")
		return nil, nil
	}
}

func TestUnusableUserSettingsWarnAndAreSkipped(t *testing.T) {
	for name, lay := range badFiles {
		for _, where := range []string{".claude", ".ouro"} {
			t.Run(name+" in ~/"+where, func(t *testing.T) {
				tr := newTree(t)
				path := filepath.Join(tr.home, where, "settings.json")
				want := lay(t, path)
				write(t, filepath.Join(tr.proj, ".ouro", "settings.json"), `{"permissions":{"allow":["Grep"]}}`)
				s, err := loadSoon(t, tr.opts())
				if err != nil {
					t.Fatalf("a bad user file stops loading: %v", err)
				}
				if len(s.Permissions.Allow) != 1 || s.Permissions.Allow[0].Text != "Grep" {
					t.Errorf("the project's rules were lost: %+v", s.Permissions.Allow)
				}
				if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], path) || !strings.Contains(s.Warnings[0], want) ||
					!strings.Contains(s.Warnings[0], "skipped") {
					t.Errorf("warnings = %q, want one naming %s and %q", s.Warnings, path, want)
				}
			})
		}
	}
}

// A project file that cannot be used is reported once, naming it and the problem, and
// left out: the session goes on with the user's own settings and the project's other
// files. --settings that cannot be used stays an error (and managed files: managed_test).
func TestUnusableProjectSettingsWarnAndAreSkipped(t *testing.T) {
	for name, lay := range badFiles {
		for _, f := range []string{".claude/settings.json", ".ouro/settings.json", ".ouro/settings.local.json", ".claude/settings.local.json"} {
			t.Run(name+" in "+f, func(t *testing.T) {
				tr := newTree(t)
				path := filepath.Join(tr.proj, f)
				want := lay(t, path)
				write(t, filepath.Join(tr.home, ".claude", "settings.json"), `{"permissions":{"allow":["Grep"]}}`)
				other := ".ouro/settings.json"
				if f == other {
					other = ".claude/settings.json"
				}
				write(t, filepath.Join(tr.proj, other), `{"permissions":{"deny":["WebFetch"]}}`)
				s, err := loadSoon(t, tr.opts())
				if err != nil {
					t.Fatalf("a bad project file stops loading: %v", err)
				}
				if len(s.Permissions.Allow) != 1 || s.Permissions.Allow[0].Text != "Grep" || len(s.Permissions.Deny) != 1 || s.Permissions.Deny[0].Text != "WebFetch" {
					t.Errorf("the other files' rules were lost: allow %+v, deny %+v", s.Permissions.Allow, s.Permissions.Deny)
				}
				if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], path) || !strings.Contains(s.Warnings[0], want) ||
					!strings.Contains(s.Warnings[0], "project settings file is skipped") {
					t.Errorf("warnings = %q, want one naming %s and %q", s.Warnings, path, want)
				}
				if !slices.Equal(s.Skipped, []string{path}) || slices.Contains(s.Files, path) {
					t.Errorf("skipped %q, files %q", s.Skipped, s.Files)
				}
			})
		}
	}
}

func TestUnusableSettingsFlagIsFatal(t *testing.T) {
	t.Run("--settings file", func(t *testing.T) {
		tr := newTree(t)
		path := filepath.Join(tr.proj, "mine.json")
		badFiles["too large"](t, path)
		o := tr.opts()
		o.Settings = "mine.json"
		if _, err := loadSoon(t, o); err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("err = %v", err)
		}
	})
}
