package gitbash

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSystem is a machine with the given files, environment, programs on PATH and
// `git --exec-path` answer ("" for a git that cannot be run).
type fakeSystem struct {
	files    map[string]bool
	env      map[string]string
	path     map[string]string
	execPath string
	ranGit   bool
}

func (f *fakeSystem) system() System {
	return System{
		Getenv: func(k string) string { return f.env[k] },
		IsFile: func(p string) bool { return f.files[filepath.Clean(p)] },
		LookPath: func(name string) (string, error) {
			if p, ok := f.path[name]; ok {
				return p, nil
			}
			return "", exec.ErrNotFound
		},
		GitExecPath: func() (string, error) {
			f.ranGit = true
			if f.execPath == "" {
				return "", exec.ErrNotFound
			}
			return f.execPath, nil
		},
	}
}

var root = filepath.Join(string(filepath.Separator), "Program Files", "Git")

func at(parts ...string) string { return filepath.Join(append([]string{root}, parts...)...) }

func files(paths ...string) map[string]bool {
	m := map[string]bool{}
	for _, p := range paths {
		m[filepath.Clean(p)] = true
	}
	return m
}

func TestFindOrder(t *testing.T) {
	custom := filepath.Join(string(filepath.Separator), "tools", "bash.exe")
	onPath := filepath.Join(string(filepath.Separator), "msys64", "usr", "bin", "bash.exe")
	gitBash := at("bin", "bash.exe")
	cases := []struct {
		name string
		sys  fakeSystem
		want string
	}{
		{"the environment variable comes first", fakeSystem{
			files: files(custom, gitBash),
			env:   map[string]string{EnvVar: custom},
			path:  map[string]string{"git": at("cmd", "git.exe"), "bash.exe": onPath},
		}, custom},
		{"then git.exe in Git\\cmd", fakeSystem{
			files: files(gitBash),
			path:  map[string]string{"git": at("cmd", "git.exe"), "bash.exe": onPath},
		}, gitBash},
		{"git.exe in Git\\bin", fakeSystem{
			files: files(gitBash),
			path:  map[string]string{"git": at("bin", "git.exe")},
		}, gitBash},
		{"then git --exec-path, for git in mingw64\\bin", fakeSystem{
			files:    files(gitBash),
			path:     map[string]string{"git": at("mingw64", "bin", "git.exe"), "bash.exe": onPath},
			execPath: filepath.ToSlash(at("mingw64", "libexec", "git-core")) + "\n",
		}, gitBash},
		{"git --exec-path with only usr\\bin\\bash.exe", fakeSystem{
			files:    files(at("usr", "bin", "bash.exe")),
			path:     map[string]string{"git": filepath.Join(string(filepath.Separator), "scoop", "shims", "git.exe")},
			execPath: at("mingw64", "libexec", "git-core"),
		}, at("usr", "bin", "bash.exe")},
		{"then bash.exe on PATH", fakeSystem{
			files: files(onPath),
			path:  map[string]string{"bash.exe": onPath},
		}, onPath},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Find(c.sys.system())
			if err != nil || got != c.want {
				t.Fatalf("Find = %q, %v; want %q", got, err, c.want)
			}
			if c.sys.execPath == "" && c.sys.ranGit {
				t.Error("Find ran git --exec-path although the files already named Git Bash")
			}
		})
	}
}

func TestFindEnvVarIsNotSecondGuessed(t *testing.T) {
	missing := filepath.Join(string(filepath.Separator), "nowhere", "bash.exe")
	sys := fakeSystem{
		files: files(at("bin", "bash.exe")),
		env:   map[string]string{EnvVar: missing},
		path:  map[string]string{"git": at("cmd", "git.exe")},
	}
	_, err := Find(sys.system())
	if err == nil || !strings.Contains(err.Error(), EnvVar) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Find = %v; want an error naming %s and %s", err, EnvVar, missing)
	}
	if sys.ranGit {
		t.Fatal("Find ran git although the environment variable named Git Bash")
	}
}

func TestFindSkipsTheWSLLauncher(t *testing.T) {
	win := filepath.Join(string(filepath.Separator), "Windows")
	for _, p := range []string{
		filepath.Join(win, "System32", "bash.exe"),
		filepath.Join(string(filepath.Separator), "Users", "me", "AppData", "Local", "Microsoft", "WindowsApps", "bash.exe"),
	} {
		sys := fakeSystem{
			files: files(p),
			env:   map[string]string{"SystemRoot": strings.ToUpper(win)},
			path:  map[string]string{"bash.exe": p},
		}
		if got, err := Find(sys.system()); !errors.Is(err, ErrNotFound) {
			t.Errorf("with only %s: Find = %q, %v; want ErrNotFound", p, got, err)
		}
	}
}

func TestFindNothingSaysWhatToDo(t *testing.T) {
	sys := fakeSystem{path: map[string]string{"git": at("cmd", "git.exe")}} // git, but no bash.exe
	_, err := Find(sys.system())
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find = %v; want ErrNotFound", err)
	}
	for _, want := range []string{EnvVar, "Git for Windows", "https://git-scm.com/downloads/win"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
