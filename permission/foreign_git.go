package permission

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/shell"
)

// A repository inside the workspace other than its own (a vendored checkout, a bare
// repository, a submodule's) has a config of its own, which may name programs git runs
// for ordinary commands: core.fsmonitor runs on `git status`, core.pager on `git log`,
// a post-index-change hook when the index is refreshed. A rule such as Bash(git status)
// is written for the workspace's repository; in another one it allows git only when that
// repository's config and hooks name no program.

// foreignGit says why c, a git command, may run a program of another repository's
// choosing ("" when it runs in the workspace's own repository, or in one whose config
// and hooks name none).
func (st *state) foreignGit(c shell.Command, bases []string) string {
	if !isGit(c) {
		return ""
	}
	if len(bases) == 0 {
		return "runs git in a folder only known when it runs, whose repository's config is not known"
	}
	dirs, gitDir := gitTargetDirs(c.Argv, bases)
	if gitDir != "" {
		if why := gitDirPrograms(gitDir); why != "" {
			return fmt.Sprintf("runs git with the git dir %s, whose %s", gitDir, why)
		}
		return ""
	}
	moved := c
	moved.Dir, moved.DirUnknown, moved.Dirs = "", true, dirs
	if st.gitUsesOwnRepository(moved) {
		return ""
	}
	for _, d := range dirs {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		repo, found := gitRepositoryFor(d)
		if !found {
			continue
		}
		gd := repoGitDir(repo)
		if gd == "" {
			return fmt.Sprintf("runs git in the repository at %s, whose git dir cannot be found", repo)
		}
		if why := gitDirPrograms(gd); why != "" {
			return fmt.Sprintf("runs git in the repository at %s, not the workspace's own, whose %s", repo, why)
		}
	}
	return ""
}

// gitTargetDirs are the folders git starts in after its -C options, and the git dir a
// --git-dir names ("" when none does).
func gitTargetDirs(argv []string, bases []string) (dirs []string, gitDir string) {
	dirs = append([]string(nil), bases...)
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-C" && i+1 < len(argv):
			i++
			for j, d := range dirs {
				dirs[j] = joinDir(d, argv[i])
			}
		case a == "--git-dir" && i+1 < len(argv):
			i++
			gitDir = joinDir(bases[0], argv[i])
		case strings.HasPrefix(a, "--git-dir="):
			gitDir = joinDir(bases[0], strings.TrimPrefix(a, "--git-dir="))
		case a == "-c" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return dirs, gitDir
		}
	}
	return dirs, gitDir
}

func joinDir(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// repoGitDir is the git dir of the repository whose top (or bare folder) is repo.
func repoGitDir(repo string) string {
	p := filepath.Join(repo, ".git")
	fi, err := os.Stat(p)
	switch {
	case err == nil && fi.IsDir():
		return p
	case err == nil && fi.Mode().IsRegular():
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return ""
		}
		return joinDir(repo, strings.TrimSpace(d))
	}
	return repo // a bare repository
}

// safeGitKeys are config keys that name no program and load no other file.
var safeGitKeys = []string{"core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
	"core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.safecrlf", "core.eol",
	"core.quotepath", "core.abbrev", "core.worktree", "extensions.objectformat", "extensions.worktreeconfig",
	"init.defaultbranch", "gc.auto", "pull.rebase", "push.default", "fetch.prune", "user.name", "user.email",
	"color.ui", "advice.detachedhead", "protocol.version"}

// safeGitSectionKeys are keys of named sections that name no program.
var safeGitSectionKeys = map[string][]string{
	"remote": {"url", "fetch", "pushurl", "mirror", "tagopt", "prune"},
	"branch": {"remote", "merge", "rebase", "pushremote"},
}

// gitDirPrograms says what in a git dir could make git run a program ("" for nothing):
// a config key outside the safe lists (core.fsmonitor, core.pager, alias.x, include.path
// and the rest), a config that cannot be read, or a hook that is not a .sample.
func gitDirPrograms(gd string) string {
	configs := []string{filepath.Join(gd, "config"), filepath.Join(gd, "config.worktree")}
	if b, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
		common := joinDir(gd, strings.TrimSpace(string(b)))
		configs = append(configs, filepath.Join(common, "config"))
		if why := hooksIn(filepath.Join(common, "hooks")); why != "" {
			return why
		}
	}
	for _, cfg := range configs {
		key, err := unsafeGitKey(cfg)
		if err != nil {
			return fmt.Sprintf("config %s cannot be read (%v)", cfg, err)
		}
		if key != "" {
			return fmt.Sprintf("config sets %s, which may name a program git runs or a file it loads", key)
		}
	}
	return hooksIn(filepath.Join(gd, "hooks"))
}

// hooksIn names a hook in dir that git would run.
func hooksIn(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".sample") {
			return fmt.Sprintf("hooks folder holds %s, which git may run", e.Name())
		}
	}
	return ""
}

// unsafeGitKey reads a git config file and returns its first key outside the safe
// lists, "" when there is none (or no file).
func unsafeGitKey(path string) (string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	section, sub := "", false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return line, nil
			}
			head := strings.TrimSpace(line[1:end])
			name, _, hasSub := strings.Cut(head, " ")
			if n, _, dotted := strings.Cut(name, "."); dotted {
				name, hasSub = n, true
			}
			section, sub = strings.ToLower(name), hasSub
			line = strings.TrimSpace(line[end+1:])
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		key, _, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		full := section + "." + key
		if sub {
			if !isOneOf(key, safeGitSectionKeys[section]) {
				return section + ".<name>." + key, nil
			}
			continue
		}
		if !isOneOf(full, safeGitKeys) {
			return full, nil
		}
	}
	return "", sc.Err()
}
