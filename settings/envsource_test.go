package settings

import (
	"os"
	"path/filepath"
	"testing"
)

// Each env value, and the user's own one a project's may not replace, names the file it
// came from; apiKeyHelper is read from the most specific file that sets it.
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
	if s.APIKeyHelper.Value != "project-helper" || s.APIKeyHelper.Source != project {
		t.Errorf("apiKeyHelper %q from %q", s.APIKeyHelper.Value, s.APIKeyHelper.Source)
	}
}
