package mcpconf

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/internal/flock"
	"github.com/ouroagent/ouro/internal/regfile"
)

// Add writes a server into scope: local and user go to ~/.ouro.json, project to the
// project's .mcp.json. A name already defined in that scope is an error.
func Add(home, cwd, scope, name string, e Entry) error {
	if !validName(name) {
		return fmt.Errorf("invalid server name %q: use only letters, digits, spaces (not first or last), '-', '_' and '.' (at most 64)", name)
	}
	if s := resolve(name, scope, "", e, func(string) string { return "x" }); s.State != "" {
		return fmt.Errorf("%s", s.Reason)
	}
	entry, err := json.Marshal(e)
	if err != nil {
		return err
	}
	put := func(servers map[string]json.RawMessage, where string) error {
		if _, dup := servers[name]; dup {
			return fmt.Errorf("MCP server %q already exists in %s config (%s); remove it first with `ouro mcp remove %s -s %s`", name, scope, where, name, scope)
		}
		servers[name] = entry
		return nil
	}
	switch scope {
	case ScopeProject:
		p := ProjectFile(cwd)
		return editFile(p, regfile.MaxConfig, func(doc map[string]json.RawMessage) error {
			return editServers(doc, func(s map[string]json.RawMessage) error { return put(s, p) })
		})
	case ScopeUser:
		p := UserFile(home)
		return editUserFile(p, func(doc map[string]json.RawMessage) error {
			return editServers(doc, func(s map[string]json.RawMessage) error { return put(s, p) })
		})
	case ScopeLocal, "":
		p := UserFile(home)
		return editUserFile(p, func(doc map[string]json.RawMessage) error {
			return editProject(doc, cwd, func(proj map[string]json.RawMessage) error {
				return editServers(proj, func(s map[string]json.RawMessage) error { return put(s, p) })
			})
		})
	}
	return fmt.Errorf("unknown scope %q: use local, project or user", scope)
}

// Remove deletes name from scope ("" → wherever ouro's files define it, which must be
// exactly one scope). It returns the file changed.
func Remove(home, cwd, scope, name string) (string, error) {
	var found []string
	try := func(sc string) (string, bool, error) {
		removed := false
		del := func(s map[string]json.RawMessage) error {
			if _, ok := s[name]; ok {
				delete(s, name)
				removed = true
			}
			return nil
		}
		var path string
		var err error
		switch sc {
		case ScopeProject:
			path = ProjectFile(cwd)
			if _, statErr := os.Stat(path); statErr != nil {
				return path, false, nil
			}
			err = editFileIf(path, regfile.MaxConfig, &removed, func(doc map[string]json.RawMessage) error { return editServers(doc, del) })
		case ScopeUser:
			path = UserFile(home)
			err = editFileIf(path, maxUserFile, &removed, func(doc map[string]json.RawMessage) error { return editServers(doc, del) })
		case ScopeLocal:
			path = UserFile(home)
			err = editFileIf(path, maxUserFile, &removed, func(doc map[string]json.RawMessage) error {
				return editProject(doc, cwd, func(p map[string]json.RawMessage) error { return editServers(p, del) })
			})
		default:
			return "", false, fmt.Errorf("unknown scope %q: use local, project or user", sc)
		}
		return path, removed, err
	}
	if scope != "" {
		path, ok, err := try(scope)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("no MCP server %q in %s config", name, scope)
		}
		return path, nil
	}
	for _, sc := range []string{ScopeLocal, ScopeProject, ScopeUser} {
		if has, err := defines(home, cwd, sc, name); err != nil {
			return "", err
		} else if has {
			found = append(found, sc)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no MCP server %q in ouro's configuration (local, project or user); `ouro mcp list` shows them", name)
	case 1:
		path, _, err := try(found[0])
		return path, err
	}
	return "", fmt.Errorf("MCP server %q exists in several scopes (%s); say which with -s/--scope", name, strings.Join(found, ", "))
}

// defines reports whether scope defines name in ouro's files.
func defines(home, cwd, scope, name string) (bool, error) {
	switch scope {
	case ScopeProject:
		s, err := readServersFile(ProjectFile(cwd))
		_, ok := s[name]
		return ok, err
	default:
		doc, err := readUserDoc(UserFile(home))
		if err != nil {
			return false, err
		}
		if scope == ScopeUser {
			_, ok := doc.MCPServers[name]
			return ok, nil
		}
		_, ok := doc.Projects[cwd].MCPServers[name]
		return ok, nil
	}
}

// Names lists the names in m, sorted.
func Names[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func editUserFile(path string, edit func(map[string]json.RawMessage) error) error {
	return editFile(path, maxUserFile, edit)
}

// editFile reads path as a JSON object, lets edit change it and writes it back whole
// (through a temporary file and a rename, so a crash leaves the old or the new file).
func editFile(path string, limit int64, edit func(map[string]json.RawMessage) error) error {
	changed := true
	return editFileIf(path, limit, &changed, edit)
}

// editFileIf is editFile that writes only when *changed is true after edit. Two ouro
// processes editing at once take turns (a lock on the folder holding it, since the file
// itself is replaced, and a lock file would litter the home folder), so neither loses the
// other's change.
func editFileIf(path string, limit int64, changed *bool, edit func(map[string]json.RawMessage) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	lock, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer lock.Close()
	if err := flock.Lock(lock, true); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	doc, err := readDoc(path, limit)
	if err != nil {
		return err
	}
	if err := edit(doc); err != nil {
		return err
	}
	if !*changed {
		return nil
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %v", path, firstErr(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// editServers edits doc["mcpServers"].
func editServers(doc map[string]json.RawMessage, edit func(map[string]json.RawMessage) error) error {
	servers := map[string]json.RawMessage{}
	if err := getJSON(doc, "mcpServers", &servers); err != nil {
		return err
	}
	if err := edit(servers); err != nil {
		return err
	}
	setJSON(doc, "mcpServers", servers)
	return nil
}

// editProject edits doc["projects"][cwd].
func editProject(doc map[string]json.RawMessage, cwd string, edit func(map[string]json.RawMessage) error) error {
	projects := map[string]map[string]json.RawMessage{}
	if err := getJSON(doc, "projects", &projects); err != nil {
		return err
	}
	p := projects[cwd]
	if p == nil {
		p = map[string]json.RawMessage{}
	}
	if err := edit(p); err != nil {
		return err
	}
	projects[cwd] = p
	setJSON(doc, "projects", projects)
	return nil
}
