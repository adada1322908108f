package mcpconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/ouroagent/ouro/internal/regfile"
)

// approval is what the user decided about the project's .mcp.json servers. Only the
// user's own files may approve (~/.ouro.json and ~/.claude.json under projects[<dir>],
// ~/.ouro/settings.json, ~/.claude/settings.json): a repository that ships a
// .claude/settings.json enabling its own .mcp.json would otherwise run any command it
// likes the moment ouro opens it. A project file may still disable servers.
type approval struct {
	all      bool
	allSet   bool
	enabled  []string
	disabled []string
}

func (a *approval) merge(f approvalFields, trusted bool) {
	a.disabled = append(a.disabled, f.Disabled...)
	if !trusted {
		return
	}
	a.enabled = append(a.enabled, f.Enabled...)
	if f.EnableAll != nil && !a.allSet {
		a.all, a.allSet = *f.EnableAll, true
	}
}

// fromSettings reads the approval keys of the settings files: the user's may approve,
// the project's only disable (and a project trying to approve is reported).
func (a *approval) fromSettings(o Options, cfg *Config) {
	ouroHome := o.OuroHome
	if ouroHome == "" && o.UserHome != "" {
		ouroHome = filepath.Join(o.UserHome, ".ouro")
	}
	var user []string
	if ouroHome != "" {
		user = append(user, filepath.Join(ouroHome, "settings.json"))
	}
	if o.UserHome != "" {
		user = append(user, filepath.Join(o.UserHome, ".claude", "settings.json"))
	}
	for _, p := range user {
		if f, ok := readApproval(p); ok {
			a.merge(f, true)
		}
	}
	for _, dir := range []string{".ouro", ".claude"} {
		for _, name := range []string{"settings.local.json", "settings.json"} {
			p := filepath.Join(o.CWD, dir, name)
			f, ok := readApproval(p)
			if !ok {
				continue
			}
			if (f.EnableAll != nil && *f.EnableAll) || len(f.Enabled) > 0 {
				cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s approves MCP servers of this project; that is ignored, since a repository may not approve its own servers: approve them once with `ouro mcp approve` or in an interactive session", p))
			}
			a.merge(f, false)
		}
	}
}

func readApproval(path string) (approvalFields, bool) {
	data, err := regfile.Read(path, regfile.MaxConfig)
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return approvalFields{}, false
	}
	var f approvalFields
	if json.Unmarshal(data, &f) != nil {
		return approvalFields{}, false // the settings loader reports broken files
	}
	return f, true
}

// decide returns the state of the project server name: "" when it may start.
func (a *approval) decide(name string) (state, reason string) {
	switch {
	case slices.Contains(a.disabled, name):
		return StateDisabled, "disabled (disabledMcpjsonServers)"
	case slices.Contains(a.enabled, name), a.all:
		return "", ""
	}
	return StateNeedsApproval, "defined by this project's .mcp.json and not approved yet: approve it once with `ouro mcp approve " + name + "` (or in an interactive session)"
}

// Approve records the user's choice about project servers in ~/.ouro.json under
// projects[<cwd>]: names enabled (enable) or disabled (!enable). A name goes from one
// list to the other.
func Approve(home, cwd string, names []string, enable bool) error {
	return editUserFile(UserFile(home), func(doc map[string]json.RawMessage) error {
		return editProject(doc, cwd, func(p map[string]json.RawMessage) error {
			var en, dis []string
			if err := getJSON(p, "enabledMcpjsonServers", &en); err != nil {
				return err
			}
			if err := getJSON(p, "disabledMcpjsonServers", &dis); err != nil {
				return err
			}
			for _, n := range names {
				en = slices.DeleteFunc(en, func(s string) bool { return s == n })
				dis = slices.DeleteFunc(dis, func(s string) bool { return s == n })
				if enable {
					en = append(en, n)
				} else {
					dis = append(dis, n)
				}
			}
			setJSON(p, "enabledMcpjsonServers", en)
			setJSON(p, "disabledMcpjsonServers", dis)
			return nil
		})
	})
}

func getJSON(m map[string]json.RawMessage, key string, v any) error {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s has an unexpected shape (%v); fix it by hand first", key, err)
	}
	return nil
}

func setJSON(m map[string]json.RawMessage, key string, v any) {
	data, _ := json.Marshal(v)
	m[key] = data
}

// readDoc reads a JSON object file (absent → empty).
func readDoc(path string, limit int64) (map[string]json.RawMessage, error) {
	doc := map[string]json.RawMessage{}
	data, err := regfile.Read(path, limit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return doc, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	case len(bytes.TrimSpace(data)) == 0:
		return doc, nil
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object (%v); fix it before ouro changes it", path, err)
	}
	return doc, nil
}
