package skill

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// CommandFolders are the command folders looked for in each directory, highest
// precedence first. A command (Claude Code's commands/<name>.md) is a skill in one file:
// /<name> runs it, $ARGUMENTS takes what follows, and its frontmatter (description,
// argument-hint, allowed-tools, model, disable-model-invocation) is a skill's. A skill
// of the same name wins over a command, wherever either was found.
var CommandFolders = []string{".ouro/commands", ".claude/commands"}

// maxCommandDepth bounds how deep below a commands folder files are looked for
// (Claude Code's subfolders group commands; the file's name is the command's).
const maxCommandDepth = 4

// commandNameRE is what a command's file name may be: Claude Code accepts more than a
// skill's kebab-case (fix_issue.md, reviewPR.md), but not names that a /name line or
// the Skill tool could not carry.
var commandNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// LoadCommands reads the command files below root, subfolders included (a plugin's
// commands/ folder, a project's .claude/commands); on a duplicate name the one nearer
// root wins.
func LoadCommands(root string, scope Scope) ([]Skill, []Warning) { return scanCommands(root, scope) }

func scanCommands(root string, scope Scope) ([]Skill, []Warning) {
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, []Warning{{Path: root, Message: "cannot list commands: " + err.Error()}}
		}
		return nil, nil
	}
	var out []Skill
	var warns []Warning
	seen := map[string]string{}
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			warns = append(warns, Warning{Path: dir, Message: "cannot list commands: " + err.Error()})
			return
		}
		var sub []string
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			fi, err := os.Stat(p) // a symlink counts as what it points to
			if err != nil {
				continue
			}
			if fi.IsDir() {
				if depth < maxCommandDepth {
					sub = append(sub, p)
				}
				continue
			}
			if !fi.Mode().IsRegular() || filepath.Ext(e.Name()) != ".md" {
				continue
			}
			name := strings.TrimSuffix(e.Name(), ".md")
			if !commandNameRE().MatchString(name) {
				warns = append(warns, Warning{Path: p, Message: "skipped: a command's file name must be letters, digits, '-', '_' or '.' (at most 64), so that /" + name + " can be typed"})
				continue
			}
			if prev, dup := seen[name]; dup {
				warns = append(warns, Warning{Path: p, Message: "skipped: the command /" + name + " is already defined by " + prev})
				continue
			}
			s, w, ok := LoadCommand(p)
			warns = append(warns, w...)
			if ok {
				seen[name] = p
				s.Scope = scope
				out = append(out, s)
			}
		}
		for _, d := range sub {
			walk(d, depth+1)
		}
	}
	walk(root, 1)
	return out, warns
}
