package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/internal/gitdir"
)

// What under .git decides which programs git runs, and so must stay read-only for
// sandboxed commands (git reads it outside the sandbox later, when the user runs git):
//
//   - config and hooks/, and core.hooksPath, include.path and every other key in config;
//   - commondir, which moves config, hooks and everything else to another folder; and
//     config.worktree (read when config turns extensions.worktreeConfig on);
//   - worktrees/<name>/{commondir,gitdir,config.worktree}: a linked worktree's pointers;
//   - modules/<name>/: a submodule's own git dir, with the same files, which git status
//     in the superproject reaches when it looks into the submodule.
//
// Everything else stays writable, since ordinary commands write it: objects/, refs/,
// logs/, index, HEAD, ORIG_HEAD, FETCH_HEAD, COMMIT_EDITMSG, packed-refs, the *.lock
// files, and the folders of a rebase or a cherry-pick. info/ and description only hold
// data (info/attributes can name a filter or diff driver, but only config defines what a
// driver runs).

// gitMetadata lists the read-only paths for the .git entry of a repository root: .git
// itself when it is missing (held by a placeholder while a command runs), a gitfile (a
// worktree's or submodule's pointer) or no git dir, else the paths above inside the git
// dir.
func gitMetadata(git string) []string {
	st, err := os.Lstat(git)
	if err != nil || !st.IsDir() || !gitdir.Is(git) {
		// Missing, a gitfile, or a folder git would skip (empty, or a placeholder: see
		// placeholder_linux.go): all of it, so that nothing can make it a git dir.
		return []string{git}
	}
	return gitDirMetadata(git, 0)
}

// maxModuleDepth bounds the nesting of submodules followed (modules/a/modules/b/...).
const maxModuleDepth = 4

func gitDirMetadata(dir string, depth int) []string {
	out := []string{filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree"),
		filepath.Join(dir, "commondir"), filepath.Join(dir, "hooks"),
		// Where git looks for objects it lacks: another store could supply a forged
		// object for any hash the repository does not have yet.
		filepath.Join(dir, "objects", "info", "alternates"), filepath.Join(dir, "objects", "info", "http-alternates")}

	wt := filepath.Join(dir, "worktrees")
	if entries, err := os.ReadDir(wt); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				w := filepath.Join(wt, e.Name())
				out = append(out, filepath.Join(w, "commondir"), filepath.Join(w, "gitdir"), filepath.Join(w, "config.worktree"))
			}
		}
	} else {
		out = append(out, wt) // missing: what a command creates there is taken back
	}

	mods := filepath.Join(dir, "modules")
	if _, err := os.Stat(mods); err != nil {
		return append(out, mods)
	}
	if depth >= maxModuleDepth {
		return append(out, mods) // too deep to list: all of it
	}
	// A submodule's name may hold slashes (modules/libs/a): a git dir is a folder with a
	// HEAD, and its own modules/ are listed by the recursive call.
	_ = filepath.WalkDir(mods, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == mods {
			return nil
		}
		if _, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil {
			out = append(out, gitDirMetadata(p, depth+1)...)
			return filepath.SkipDir
		}
		return nil
	})
	return out
}

// Hooks and configuration git reads from outside its git dir, which a command must not
// write either when they lie in a write root:
//
//   - core.hooksPath (husky's .husky/_, a .githooks folder): git runs the hooks there
//     instead of .git/hooks. Husky's hooks there run the scripts of the folder above
//     (.husky/pre-commit), so for a hooks folder named _ its parent is kept too.
//   - the files include.path and includeIf.*.path name, which are config like any other
//     (core.fsmonitor, core.sshCommand, alias.*).
//   - init.templateDir and $GIT_TEMPLATE_DIR: git init and git clone copy the hooks
//     there into every new repository.
//
// They are read from the repository's config and the user's (~/.gitconfig,
// $XDG_CONFIG_HOME/git/config or $GIT_CONFIG_GLOBAL), following includes. .gitmodules
// stays ordinary content: git takes no command from it (submodule.*.update=!cmd counts
// only in .git/config, and the ext:: transport is refused by default), and a gitlink
// a command adds to the index is put back (IndexGuard).

// maxIncludeDepth bounds how deep includes are followed (git's own limit is 10).
const maxIncludeDepth = 10

// gitConfigPaths lists the paths above for the repository whose work tree is repo and
// whose git dir is gitDir; home is the user's home folder ("" for none).
func gitConfigPaths(repo, gitDir, home string) []string {
	var files []string
	if gitDir != "" {
		files = append(files, filepath.Join(gitDir, "config"))
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(xdg) {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	var out []string
	seen := map[string]bool{}
	var read func(file string, depth int, top bool)
	read = func(file string, depth int, top bool) {
		if depth > maxIncludeDepth || seen[file] {
			return
		}
		seen[file] = true
		if !top {
			out = append(out, file)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return
		}
		for _, kv := range parseGitConfig(string(data)) {
			switch kv.key {
			case "core.hookspath":
				if d := gitConfigPath(kv.value, home, repo); d != "" {
					out = append(out, d)
					if filepath.Base(d) == "_" {
						out = append(out, filepath.Dir(d))
					}
				}
			case "init.templatedir":
				if d := gitConfigPath(kv.value, home, repo); d != "" {
					out = append(out, d)
				}
			case "include.path", "includeif.path":
				if f := gitConfigPath(kv.value, home, filepath.Dir(file)); f != "" {
					read(f, depth+1, false)
				}
			}
		}
	}
	for _, f := range files {
		read(f, 0, true)
	}
	if t := os.Getenv("GIT_TEMPLATE_DIR"); filepath.IsAbs(t) {
		out = append(out, t)
	}
	return out
}

// gitConfigPath resolves a path value of git's config: ~/ is the home folder, a relative
// one lies under base.
func gitConfigPath(v, home, base string) string {
	switch {
	case v == "":
		return ""
	case v == "~" || strings.HasPrefix(v, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, v[1:])
	case filepath.IsAbs(v):
		return filepath.Clean(v)
	case base == "":
		return ""
	default:
		return filepath.Join(base, v)
	}
}

type gitConfigEntry struct{ key, value string }

// parseGitConfig reads the keys of a git config file as section.key (lower case;
// includeIf's condition is dropped, so every includeIf.<cond>.path is includeif.path:
// whether the condition holds does not matter for what must stay read-only).
func parseGitConfig(text string) []gitConfigEntry {
	var out []gitConfigEntry
	section := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				section = ""
				continue
			}
			head := strings.TrimSpace(line[1:end])
			if name, _, ok := strings.Cut(head, " "); ok {
				head = name // a subsection: [includeIf "gitdir:..."]
			} else if name, _, ok := strings.Cut(head, "."); ok {
				head = name // the old [section.subsection] form
			}
			section = strings.ToLower(head)
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || section == "" {
			continue
		}
		v = strings.TrimSpace(v)
		if i := strings.IndexAny(v, "#;"); i >= 0 && !strings.Contains(v[:i], `"`) {
			v = strings.TrimSpace(v[:i])
		}
		v = strings.Trim(v, `"`)
		out = append(out, gitConfigEntry{section + "." + strings.ToLower(strings.TrimSpace(k)), v})
	}
	return out
}
