package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A repository may not loosen a person's choices: a project's own files may not choose
// bypassPermissions or acceptEdits, turn the sandbox off, let commands leave it against
// the user's no, or open folders outside the project. Each is ignored with one warning
// naming the file, the key and how to allow it; stricter values still apply.
func TestProjectFilesMayNotLoosen(t *testing.T) {
	for _, mode := range []string{"bypassPermissions", "acceptEdits"} {
		tr := newTree(t)
		write(t, filepath.Join(tr.home, ".claude", "settings.json"), `{"sandbox":{"allowUnsandboxedCommands":false}}`)
		outside := t.TempDir()
		os.Symlink(outside, filepath.Join(tr.proj, "link"))
		proj := write(t, filepath.Join(tr.proj, ".claude", "settings.json"), `{
			"permissions":{"defaultMode":"`+mode+`","additionalDirectories":["../elsewhere","/etc","~","link","src","./docs/../lib"]},
			"sandbox":{"enabled":false,"allowUnsandboxedCommands":true}}`)
		s, err := Load(tr.opts())
		if err != nil {
			t.Fatal(err)
		}
		if s.Permissions.DefaultMode.Value != "" || s.Permissions.DefaultMode.Source != "" {
			t.Errorf("%s: mode %q from %q, want none", mode, s.Permissions.DefaultMode.Value, s.Permissions.DefaultMode.Source)
		}
		if s.Sandbox.Enabled != nil {
			t.Errorf("%s: sandbox.enabled = %v, want unset", mode, s.Sandbox.Enabled.Value)
		}
		if u := s.Sandbox.AllowUnsandboxedCommands; u == nil || *u {
			t.Errorf("%s: allowUnsandboxedCommands = %v, want the user's false", mode, u)
		}
		if want := []string{filepath.Join(tr.proj, "src"), filepath.Join(tr.proj, "lib")}; !reflect.DeepEqual(s.Permissions.AdditionalDirectories, want) {
			t.Errorf("%s: additionalDirectories = %q, want %q", mode, s.Permissions.AdditionalDirectories, want)
		}
		wants := []string{"permissions.defaultMode \"" + mode + "\" is ignored", "--permission-mode " + mode,
			`additionalDirectories "../elsewhere"`, `additionalDirectories "/etc"`, `additionalDirectories "~"`, `additionalDirectories "link"`,
			"sandbox.enabled false is ignored", "sandbox.allowUnsandboxedCommands true is ignored"}
		all := strings.Join(s.Warnings, "\n")
		if len(s.Warnings) != 7 {
			t.Errorf("%s: %d warnings, want 7:\n%s", mode, len(s.Warnings), all)
		}
		for _, w := range wants {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no warning %q in:\n%s", mode, w, all)
			}
		}
		for _, w := range s.Warnings {
			if !strings.HasPrefix(w, proj+": ") || !strings.Contains(w, "~/.claude/settings.json or ~/.ouro/settings.json") {
				t.Errorf("%s: the warning does not name the file and how to allow it: %s", mode, w)
			}
		}
	}

	// Stricter values from a project still apply; the person's own files, --settings and
	// the flag still loosen.
	tr := newTree(t)
	write(t, filepath.Join(tr.home, ".claude", "settings.json"), `{"permissions":{"defaultMode":"bypassPermissions"},"sandbox":{"enabled":false}}`)
	write(t, filepath.Join(tr.proj, ".claude", "settings.json"), `{"permissions":{"defaultMode":"plan"},"sandbox":{"enabled":true,"allowUnsandboxedCommands":false}}`)
	s, err := Load(tr.opts())
	if err != nil {
		t.Fatal(err)
	}
	if s.Permissions.DefaultMode.Value != "plan" || s.Sandbox.Enabled == nil || !s.Sandbox.Enabled.Value || *s.Sandbox.AllowUnsandboxedCommands || len(s.Warnings) != 0 {
		t.Errorf("stricter project values: mode %q sandbox %v unsandboxed %v warnings %q", s.Permissions.DefaultMode.Value, s.Sandbox.Enabled, s.Sandbox.AllowUnsandboxedCommands, s.Warnings)
	}
	write(t, filepath.Join(tr.proj, ".claude", "settings.json"), `{"permissions":{"defaultMode":"acceptEdits"},"sandbox":{"enabled":false}}`)
	if s, err = Load(tr.opts()); err != nil {
		t.Fatal(err)
	}
	if s.Permissions.DefaultMode.Value != "bypassPermissions" || s.Sandbox.Enabled.Value || len(s.Warnings) != 2 {
		t.Errorf("the user's own file: mode %q sandbox %v warnings %q", s.Permissions.DefaultMode.Value, s.Sandbox.Enabled.Value, s.Warnings)
	}
	o := tr.opts()
	o.Settings = `{"permissions":{"defaultMode":"acceptEdits","additionalDirectories":["/srv"]}}`
	if s, err = Load(o); err != nil {
		t.Fatal(err)
	}
	if s.Permissions.DefaultMode.Value != "acceptEdits" || s.Permissions.DefaultMode.Source != SourceSettingsFlag || !reflect.DeepEqual(s.Permissions.AdditionalDirectories, []string{"/srv"}) {
		t.Errorf("--settings: mode %q from %q dirs %q", s.Permissions.DefaultMode.Value, s.Permissions.DefaultMode.Source, s.Permissions.AdditionalDirectories)
	}
	o = tr.opts()
	o.PermissionMode = "acceptEdits"
	if s, err = Load(o); err != nil {
		t.Fatal(err)
	}
	if s.Permissions.DefaultMode.Value != "acceptEdits" || s.Permissions.DefaultMode.Source != "--permission-mode" {
		t.Errorf("--permission-mode: %q from %q", s.Permissions.DefaultMode.Value, s.Permissions.DefaultMode.Source)
	}
}

// A settings file an ouro session wrote and no person reviewed keeps only what restricts:
// its allow rules, mode, hooks, env, directories and the like are ignored with a warning
// that names the file and each key; its deny and ask rules still apply. The user's own
// files are judged the same way; a reviewed file counts whole.
func TestUnreviewedFilesMayNotWiden(t *testing.T) {
	tr := newTree(t)
	local := write(t, filepath.Join(tr.proj, ".claude", "settings.local.json"), `{
		"permissions":{"allow":["Bash(curl *)"],"deny":["Read(./.env)"],"ask":["Bash(git push *)"],"defaultMode":"plan","additionalDirectories":["src"]},
		"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]},
		"env":{"FOO":"bar"},"sandbox":{"enabled":true,"excludedCommands":["curl"]},"model":"x"}`)
	user := write(t, filepath.Join(tr.home, ".claude", "settings.json"), `{"permissions":{"allow":["Bash(wget *)"]}}`)
	opts := tr.opts()
	opts.Unreviewed = func(path string, data []byte) string {
		if path == local || path == user {
			return "it was written by ouro's tools"
		}
		return ""
	}
	s, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Permissions.Allow) != 0 || s.Permissions.DefaultMode.Value != "" || len(s.Hooks) != 0 || len(s.Env) != 0 ||
		len(s.Permissions.AdditionalDirectories) != 0 || len(s.Sandbox.ExcludedCommands) != 0 || s.Model.Value != "" {
		t.Fatalf("an unreviewed file widened: %+v", s)
	}
	if len(s.Permissions.Deny) != 1 || len(s.Permissions.Ask) != 1 || s.Sandbox.Enabled == nil || !s.Sandbox.Enabled.Value {
		t.Fatalf("its restrictions were lost: deny %v ask %v sandbox %v", s.Permissions.Deny, s.Permissions.Ask, s.Sandbox.Enabled)
	}
	all := strings.Join(s.Warnings, "\n")
	for _, want := range []string{local + ": env, hooks, model, permissions.additionalDirectories, permissions.allow, permissions.defaultMode, sandbox.excludedCommands ignored: it was written by ouro's tools",
		user + ": permissions.allow ignored", "edit it yourself"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	opts.Unreviewed = func(string, []byte) string { return "" }
	if s, _ = Load(opts); len(s.Permissions.Allow) != 2 || len(s.Hooks) != 1 {
		t.Fatalf("a reviewed file did not count whole: %+v", s.Permissions.Allow)
	}
}
