package mcpconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

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
	// approved are the configurations the user approved, by name (ouro's own record in
	// ~/.ouro.json): an approval holds only for the server as it was approved.
	approved map[string]Fingerprint
}

// Fingerprint is what an approval of a project server is bound to: the server as
// .mcp.json writes it (before ${VAR} expansion), its command, arguments, the names of
// its environment variables (never their values, which may be secrets) and its URL. A
// .mcp.json entry whose fingerprint differs (after a pull or a branch switch) is a new
// server and needs approving again.
type Fingerprint struct {
	Type    string   `json:"type"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Env     []string `json:"env,omitempty"` // the names, sorted
	URL     string   `json:"url,omitempty"`
	// Root is a plugin server's plugin folder: the same definition in another folder
	// runs other files.
	Root string `json:"root,omitempty"`
}

// fingerprintOf is e's fingerprint; typ is its transport as resolved (stdio, http, sse).
func fingerprintOf(typ string, e Entry) Fingerprint {
	f := Fingerprint{Type: typ, Command: e.Command, Args: e.Args, URL: e.URL}
	for k := range e.Env {
		f.Env = append(f.Env, k)
	}
	slices.Sort(f.Env)
	return f
}

// changes says in words how f differs from the approved was ("" when it does not).
func (f Fingerprint) changes(was Fingerprint) string {
	var out []string
	diff := func(what, from, to string) {
		if from != to {
			out = append(out, fmt.Sprintf("%s changed from %s to %s", what, orNone(from), orNone(to)))
		}
	}
	diff("type", was.Type, f.Type)
	diff("command", was.Command, f.Command)
	if !slices.Equal(was.Args, f.Args) {
		out = append(out, fmt.Sprintf("arguments changed from %s to %s", quoteList(was.Args), quoteList(f.Args)))
	}
	if !slices.Equal(was.Env, f.Env) {
		out = append(out, fmt.Sprintf("environment variables changed from %s to %s", quoteList(was.Env), quoteList(f.Env)))
	}
	diff("url", was.URL, f.URL)
	diff("plugin folder", was.Root, f.Root)
	return strings.Join(out, "; ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func quoteList(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, " ") + "]"
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
		f, data, ok := readApproval(p)
		if !ok {
			continue
		}
		trusted := true
		if o.Unreviewed != nil {
			if why := o.Unreviewed(p, data); why != "" {
				trusted = false
				if (f.EnableAll != nil && *f.EnableAll) || len(f.Enabled) > 0 {
					cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s approves MCP servers; that is ignored until a person reviews the file (%s)", p, why))
				}
			}
		}
		a.merge(f, trusted)
	}
	for _, dir := range []string{".ouro", ".claude"} {
		for _, name := range []string{"settings.local.json", "settings.json"} {
			p := filepath.Join(o.CWD, dir, name)
			f, _, ok := readApproval(p)
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

func readApproval(path string) (approvalFields, []byte, bool) {
	data, err := regfile.Read(path, regfile.MaxConfig)
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return approvalFields{}, nil, false
	}
	var f approvalFields
	if json.Unmarshal(data, &f) != nil {
		return approvalFields{}, nil, false // the settings loader reports broken files
	}
	return f, data, true
}

// decide returns the state of the project server name, whose configuration is now fp:
// "" when it may start. changed says how it differs from what the user approved. An
// approval by name alone (Claude Code's ~/.claude.json, ouro before it kept the
// fingerprint, a hand-written enabledMcpjsonServers) does not say what was approved, so
// the server is asked about again, once: it may be a different command under the old
// name, and starting it unasked would run whatever the repository now says.
// enableAllProjectMcpServers in the user's own settings is the user's choice to run
// whatever the project defines, and still holds.
func (a *approval) decide(name string, fp Fingerprint) (state, reason, changed string) {
	again := "approve it again with `ouro mcp approve " + name + "` (or in an interactive session)"
	switch {
	case slices.Contains(a.disabled, name):
		return StateDisabled, "disabled (disabledMcpjsonServers)", ""
	case a.all:
		return "", "", ""
	case slices.Contains(a.enabled, name):
		was, ok := a.approved[name]
		if !ok {
			return StateNeedsApproval, "approved by name only, without a record of the configuration approved, so ouro cannot tell whether this project's .mcp.json changed it since: " + again, ""
		}
		if changed = fp.changes(was); changed != "" {
			return StateNeedsApproval, "changed in this project's .mcp.json since you approved it (" + changed + "), so it is a new server: " + again, changed
		}
		return "", "", ""
	}
	return StateNeedsApproval, "defined by this project's .mcp.json and not approved yet: approve it once with `ouro mcp approve " + name + "` (or in an interactive session)", ""
}

// approvedKey holds, under projects[<cwd>] in ~/.ouro.json, the fingerprint of each
// approved project server (Claude Code does not read it).
const approvedKey = "ouroApprovedMcpjsonServers"

// Approve records the user's choice about project servers (as Load returned them, so
// the approval is bound to the configuration the user was shown) in ~/.ouro.json under
// projects[<cwd>]: enabled with their fingerprints (enable) or disabled (!enable). A
// name goes from one list to the other.
func Approve(home, cwd string, servers []Server, enable bool) error {
	return editUserFile(UserFile(home), func(doc map[string]json.RawMessage) error {
		return editProject(doc, cwd, func(p map[string]json.RawMessage) error {
			var en, dis []string
			prints := map[string]Fingerprint{}
			if err := getJSON(p, "enabledMcpjsonServers", &en); err != nil {
				return err
			}
			if err := getJSON(p, "disabledMcpjsonServers", &dis); err != nil {
				return err
			}
			if err := getJSON(p, approvedKey, &prints); err != nil {
				return err
			}
			for _, s := range servers {
				n := s.Name
				en = slices.DeleteFunc(en, func(s string) bool { return s == n })
				dis = slices.DeleteFunc(dis, func(s string) bool { return s == n })
				delete(prints, n)
				if enable {
					en = append(en, n)
					if s.fingerprint != nil {
						prints[n] = *s.fingerprint
					}
				} else {
					dis = append(dis, n)
				}
			}
			setJSON(p, "enabledMcpjsonServers", en)
			setJSON(p, "disabledMcpjsonServers", dis)
			setJSON(p, approvedKey, prints)
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

// SettingsKeys are the keys of settings files this package reads (the approvals of a
// project's .mcp.json servers), from the struct they are decoded into: doctor counts
// them as honoured.
func SettingsKeys() []string {
	t := reflect.TypeFor[approvalFields]()
	out := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}
