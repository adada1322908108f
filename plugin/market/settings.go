package market

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/internal/settingsfile"
)

// Policy is what the settings say about marketplaces: those extraKnownMarketplaces
// declares, and the managed strictKnownMarketplaces list (StrictSet: present, even
// empty, which allows none).
type Policy struct {
	Extra      map[string]Source
	ExtraFrom  map[string]string
	Strict     []Source
	StrictSet  bool
	StrictFrom string
}

// Allows reports whether the strict list lets src be used: an entry of the same kind
// naming the same repository, URL or folder (and ref, when the entry names one), or a
// hostPattern / pathPattern entry whose regular expression matches its host or folder.
func (p Policy) Allows(src Source) error {
	if !p.StrictSet {
		return nil
	}
	for _, e := range p.Strict {
		if strictMatch(e, src) {
			return nil
		}
	}
	return fmt.Errorf("marketplace %s is refused: managed settings (%s) allow only the marketplaces strictKnownMarketplaces lists", src, p.StrictFrom)
}

func strictMatch(e, src Source) bool {
	switch e.Source {
	case "hostPattern":
		re, err := regexp.Compile(e.HostPattern)
		h := hostOf(src)
		return err == nil && h != "" && re.MatchString(h)
	case "pathPattern":
		re, err := regexp.Compile(e.PathPattern)
		return err == nil && src.Source == KindDirectory && re.MatchString(src.Path)
	}
	if e.Source != src.Source || (e.Ref != "" && e.Ref != src.Ref) {
		return false
	}
	switch src.Source {
	case KindGitHub:
		return strings.EqualFold(e.Repo, src.Repo)
	case KindDirectory:
		return e.Path != "" && filepath.Clean(e.Path) == filepath.Clean(src.Path)
	default:
		return e.URL != "" && e.URL == src.URL
	}
}

// hostOf is the host a git or github source is fetched from.
func hostOf(src Source) string {
	switch src.Source {
	case KindGitHub:
		return "github.com"
	case KindGit, KindURL, KindGitSubdir:
		if m := scpRE.FindString(src.URL); m != "" {
			_, h, _ := strings.Cut(strings.TrimSuffix(m[:len(m)-1], ":"), "@")
			return h
		}
		if u, err := url.Parse(src.URL); err == nil {
			return u.Hostname()
		}
	}
	return ""
}

// Files say where the settings files are.
type Files struct {
	UserHome, OuroHome, Project string
	// Managed are the managed settings files, most binding first.
	Managed []string
	// Unreviewed says why a user or project file may not enable plugins or declare
	// marketplaces ("" when it may): an ouro session wrote it and nobody reviewed it.
	Unreviewed func(path string, data []byte) string
}

// Settings are the plugin keys of the settings files.
type Settings struct {
	Enabled     map[string]bool
	EnabledFrom map[string]string
	Policy      Policy
	Warnings    []string
}

type pluginKeys struct {
	EnabledPlugins          map[string]json.RawMessage         `json:"enabledPlugins"`
	ExtraKnownMarketplaces  map[string]struct{ Source Source } `json:"extraKnownMarketplaces"`
	StrictKnownMarketplaces *[]Source                          `json:"strictKnownMarketplaces"`
}

// Read reads enabledPlugins and extraKnownMarketplaces from every settings file, the
// more specific winning for a key (user < project < local < managed, as in Claude
// Code), except that a project's file may not turn on a plugin the person's own
// settings turn off; strictKnownMarketplaces comes from the managed files only.
func Read(f Files) Settings {
	out := Settings{Enabled: map[string]bool{}, EnabledFrom: map[string]string{},
		Policy: Policy{Extra: map[string]Source{}, ExtraFrom: map[string]string{}}}
	var files []string
	if f.UserHome != "" {
		files = append(files, filepath.Join(f.UserHome, ".claude", "settings.json"))
	}
	if f.OuroHome != "" {
		files = append(files, filepath.Join(f.OuroHome, "settings.json"))
	}
	users := len(files)
	if f.Project != "" {
		for _, n := range []string{"settings.json", "settings.local.json"} {
			files = append(files, filepath.Join(f.Project, ".claude", n), filepath.Join(f.Project, ".ouro", n))
		}
	}
	userOff := map[string]string{}
	for i, p := range files {
		k, data, ok := readKeys(p)
		if !ok {
			continue
		}
		why := ""
		if f.Unreviewed != nil {
			why = f.Unreviewed(p, data)
		}
		if i >= users {
			// A repository may not turn on a plugin the person turned off.
			for id, raw := range k.EnabledPlugins {
				if by, off := userOff[id]; off && enabledValue(raw) {
					delete(k.EnabledPlugins, id)
					out.Warnings = append(out.Warnings, fmt.Sprintf("%s enables plugin %s, which your own settings (%s) disable: ignored", p, id, by))
				}
			}
		}
		out.apply(k, p, why)
		if i < users {
			for id, on := range out.Enabled {
				if !on && out.EnabledFrom[id] == p {
					userOff[id] = p
				} else if on && out.EnabledFrom[id] == p {
					delete(userOff, id)
				}
			}
		}
	}
	for i := len(f.Managed) - 1; i >= 0; i-- {
		k, _, ok := readKeys(f.Managed[i])
		if !ok {
			continue
		}
		out.apply(k, f.Managed[i], "")
		if k.StrictKnownMarketplaces != nil {
			out.Policy.Strict, out.Policy.StrictSet, out.Policy.StrictFrom = *k.StrictKnownMarketplaces, true, f.Managed[i]
		}
	}
	return out
}

func (s *Settings) apply(k pluginKeys, path, unreviewed string) {
	ignored := false
	for id, raw := range k.EnabledPlugins {
		on := enabledValue(raw)
		if on && unreviewed != "" {
			ignored = true
			continue
		}
		s.Enabled[id], s.EnabledFrom[id] = on, path
	}
	for name, m := range k.ExtraKnownMarketplaces {
		if unreviewed != "" {
			ignored = true
			continue
		}
		s.Policy.Extra[name], s.Policy.ExtraFrom[name] = m.Source, path
	}
	if ignored {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s enables plugins or declares marketplaces; that is ignored until a person reviews the file (%s)", path, unreviewed))
	}
}

// enabledValue: true, or a list of version constraints (enabled), is on.
func enabledValue(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "true" {
		return true
	}
	var list []any
	return json.Unmarshal(raw, &list) == nil && len(list) > 0
}

func readKeys(path string) (pluginKeys, []byte, bool) {
	data, err := regfile.Read(path, regfile.MaxConfig)
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return pluginKeys{}, nil, false
	}
	var k pluginKeys
	if json.Unmarshal(data, &k) != nil {
		return pluginKeys{}, nil, false // the settings loader reports broken files
	}
	return k, data, true
}

// UserSettings is the settings file `ouro plugin enable` writes: ouro's own user file.
func UserSettings(ouroHome string) string { return filepath.Join(ouroHome, "settings.json") }

// SetEnabled sets enabledPlugins[id] in the settings file at path (on nil: removes it),
// keeping every other key.
func SetEnabled(path, id string, on *bool) error {
	return settingsfile.Edit(path, "enabledPlugins", func(doc map[string]json.RawMessage) (bool, error) {
		m := map[string]json.RawMessage{}
		if raw, ok := doc["enabledPlugins"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &m); err != nil {
				return false, fmt.Errorf("%s: enabledPlugins is not an object (%v); fix it by hand first", path, err)
			}
		}
		if on == nil {
			if _, ok := m[id]; !ok {
				return false, nil
			}
			delete(m, id)
		} else {
			m[id] = json.RawMessage(fmt.Sprint(*on))
		}
		data, err := json.Marshal(m)
		if err != nil {
			return false, err
		}
		doc["enabledPlugins"] = data
		return true, nil
	})
}

// SettingsKeys are the settings keys this package reads (doctor counts them honoured).
func SettingsKeys() []string {
	return []string{"enabledPlugins", "extraKnownMarketplaces", "strictKnownMarketplaces"}
}
