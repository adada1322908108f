//go:build unix

package settings

import (
	"os"
	"path/filepath"
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

func TestUnusableProjectSettingsAreFatal(t *testing.T) {
	for name, lay := range badFiles {
		for _, f := range []string{".claude/settings.json", ".ouro/settings.json", ".ouro/settings.local.json", ".claude/settings.local.json"} {
			t.Run(name+" in "+f, func(t *testing.T) {
				tr := newTree(t)
				path := filepath.Join(tr.proj, f)
				want := lay(t, path)
				_, err := loadSoon(t, tr.opts())
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v, want one naming %s and %q", err, path, want)
				}
			})
		}
	}
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
