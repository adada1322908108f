// Package gitbash finds Git Bash, the bash.exe of Git for Windows, which ouro runs shell
// commands in on Windows (as Claude Code does).
package gitbash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// EnvVar names bash.exe outright, as Claude Code reads it.
const EnvVar = "CLAUDE_CODE_GIT_BASH_PATH"

// System is what Find looks at: the real one in Locate, a fake one in tests.
type System struct {
	// Getenv reads ouro's environment.
	Getenv func(key string) string
	// IsFile reports whether path names a regular file.
	IsFile func(path string) bool
	// LookPath finds a program on PATH.
	LookPath func(name string) (string, error)
	// GitExecPath is what `git --exec-path` prints (trimmed), or an error.
	GitExecPath func() (string, error)
}

// Find returns the path of Git Bash, looking, in this order, at:
//
//   - $CLAUDE_CODE_GIT_BASH_PATH, which must then name an existing file (a wrong path
//     is an error, not a reason to run some other bash);
//   - the Git for Windows that git on PATH belongs to: git.exe lives in Git\cmd or
//     Git\bin, bash.exe in Git\bin (Claude Code's rule, git.exe\..\..\bin\bash.exe);
//   - the one `git --exec-path` belongs to (Git\mingw64\libexec\git-core, three levels
//     below Git\bin\bash.exe), which also finds it when git on PATH is a shim or
//     Git\mingw64\bin\git.exe;
//   - bash.exe on PATH, except the WSL launcher in the Windows folder (System32, or the
//     WindowsApps alias), which runs Linux, not Git Bash.
//
// The error names CLAUDE_CODE_GIT_BASH_PATH and where Git for Windows comes from.
func Find(s System) (string, error) {
	if p := s.Getenv(EnvVar); p != "" {
		if s.IsFile(p) {
			return p, nil
		}
		return "", fmt.Errorf("%s is %q, which is not a file: set it to the path of Git Bash's bash.exe (for example %s) or unset it", EnvVar, p, example)
	}
	if git, err := s.LookPath("git"); err == nil {
		if c := filepath.Join(filepath.Dir(git), "..", "bin", "bash.exe"); s.IsFile(c) {
			return c, nil
		}
		// Only now run git: the lookups above cost no process.
		if ep, err := s.GitExecPath(); err == nil && ep != "" {
			root := filepath.Join(filepath.Clean(ep), "..", "..", "..")
			for _, c := range []string{filepath.Join(root, "bin", "bash.exe"), filepath.Join(root, "usr", "bin", "bash.exe")} {
				if s.IsFile(c) {
					return c, nil
				}
			}
		}
	}
	if p, err := s.LookPath("bash.exe"); err == nil && !wslLauncher(p, s.Getenv("SystemRoot")) {
		return p, nil
	}
	return "", ErrNotFound
}

const example = `C:\Program Files\Git\bin\bash.exe`

// ErrNotFound says Git Bash is missing and what to do about it.
var ErrNotFound = errors.New("on Windows, ouro runs shell commands in Git Bash, and none was found: install Git for Windows (https://git-scm.com/downloads/win), or, if it is installed but git is not on PATH, set " + EnvVar + " to its bash.exe, for example " + EnvVar + "=" + example)

// wslLauncher reports whether p is Windows' own bash.exe, which starts WSL.
func wslLauncher(p, systemRoot string) bool {
	dir := strings.ToLower(filepath.Clean(filepath.Dir(p)))
	if systemRoot != "" && strings.HasPrefix(dir+string(filepath.Separator), strings.ToLower(filepath.Clean(systemRoot))+string(filepath.Separator)) {
		return true
	}
	return strings.HasSuffix(dir, strings.ToLower(string(filepath.Separator)+filepath.Join("microsoft", "windowsapps")))
}

// Locate is Find on this machine.
func Locate() (string, error) {
	return Find(System{
		Getenv: os.Getenv,
		IsFile: func(p string) bool {
			st, err := os.Stat(p)
			return err == nil && st.Mode().IsRegular()
		},
		LookPath: exec.LookPath,
		GitExecPath: func() (string, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, "git", "--exec-path").Output()
			return strings.TrimSpace(string(out)), err
		},
	})
}
