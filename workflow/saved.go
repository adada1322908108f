package workflow

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// SavedDirs are where saved workflows are looked for under a project, in order: ouro's
// own folder first, then Claude Code's.
func SavedDirs(cwd string) []string {
	return []string{filepath.Join(cwd, ".ouro", "workflows"), filepath.Join(cwd, ".claude", "workflows")}
}

// savedNameRE: a letter or digit, then at most 127 of letters, digits, '.', '_' and '-'
// (the length is checked apart: a counted repetition compiles to a 100 KB program that
// every run would build at start).
var savedNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func validSavedName(name string) bool { return len(name) <= 128 && savedNameRE.MatchString(name) }

// Saved is a saved workflow found on disk.
type Saved struct {
	Name string
	Path string
	Meta Meta
	Err  error // the file does not parse as a workflow
}

// FindSaved returns the saved workflow called name (the file NAME.js in one of dirs).
func FindSaved(dirs []string, name string) (Script, error) {
	name = strings.TrimSuffix(name, ".js")
	if !validSavedName(name) {
		return Script{}, fmt.Errorf("%q is not a saved workflow's name (letters, digits, '.', '_' and '-'; no paths: use scriptPath for a file)", name)
	}
	for _, d := range dirs {
		path := filepath.Join(d, name+".js")
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if st.Size() > MaxScriptBytes {
			return Script{}, fmt.Errorf("%s is %d bytes; the limit is %d", path, st.Size(), MaxScriptBytes)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return Script{}, err
		}
		return Script{Name: name, Path: path, Source: string(b)}, nil
	}
	var have []string
	for _, s := range ListSaved(dirs, nil) {
		have = append(have, s.Name)
	}
	if len(have) == 0 {
		return Script{}, fmt.Errorf("no saved workflow %q: there are none in %s", name, strings.Join(dirs, " or "))
	}
	return Script{}, fmt.Errorf("no saved workflow %q; the saved workflows are: %s", name, strings.Join(have, ", "))
}

// ListSaved lists the saved workflows of dirs; a name in an earlier folder hides the same
// name in a later one. check, when given, reads each one's meta.
func ListSaved(dirs []string, check func(string) (Meta, error)) []Saved {
	seen := map[string]bool{}
	var out []Saved
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), ".js")
			if !ok || !validSavedName(name) || seen[name] || !e.Type().IsRegular() {
				continue
			}
			seen[name] = true
			s := Saved{Name: name, Path: filepath.Join(d, e.Name())}
			if b, err := os.ReadFile(s.Path); err != nil {
				s.Err = err
			} else if check != nil {
				s.Meta, s.Err = check(string(b))
			}
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
