//go:build unix

package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The wrapper Git Bash gets on Windows, run here by bash: the command arrives through
// the environment exactly as written, sees an empty "$@" and none of the variables that
// carried it, the env folder is sourced first, and the final directory is recorded.
func TestEnvCallRunsTheCommandAsWritten(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := realDir(t, t.TempDir())
	sub := filepath.Join(dir, "sub dir")
	envDir := filepath.Join(dir, "env")
	for _, d := range []string{sub, envDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(envDir, "a.sh"), []byte("export FROM_ENV_DIR=yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cwdFile := filepath.Join(dir, "cwd")
	command := `printf '%s|' "$#" "a\"b" '\\' * "$FROM_ENV_DIR" "${OURO_BASH_COMMAND-unset}" "$(env | grep -c '^OURO_BASH_')"; cd "sub dir"; exit 4`
	args, env := envCall(bash, command, cwdFile, envDir, "pwd -P")
	for _, a := range args {
		if strings.Contains(a, "printf") {
			t.Fatalf("the command is on the command line: %q", args)
		}
	}
	cmd := exec.Command(bash, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
		t.Fatalf("err %v, want exit status 4 (output %q)", err, out)
	}
	if want := `0|a"b|\\|env|sub dir|x.go|yes|unset|0|`; string(out) != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if got, _ := os.ReadFile(cwdFile); strings.TrimSpace(string(got)) != sub {
		t.Errorf("recorded directory %q, want %q", got, sub)
	}
}
