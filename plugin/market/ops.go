package market

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/plugin"
)

// AddMarket adds the marketplace at src (a folder, or a git repository it clones) and
// returns its name, from its marketplace.json. The strict list is checked before
// anything is fetched.
func (s Store) AddMarket(src Source, p Policy) (string, error) {
	if err := p.Allows(src); err != nil {
		return "", err
	}
	known, err := s.Markets()
	if err != nil {
		return "", err
	}
	k := Known{Source: src, LastUpdated: s.now()}
	var m *Manifest
	var tmp string
	switch src.Source {
	case KindDirectory:
		if !filepath.IsAbs(src.Path) {
			return "", fmt.Errorf("a directory marketplace needs an absolute path, not %q", src.Path)
		}
		if m, err = readManifest(filepath.Join(src.Path, ManifestPath)); err != nil {
			return "", err
		}
		k.InstallLocation = src.Path
		k.Commit, _ = head(src.Path)
	case KindGit, KindGitHub:
		url, err := src.gitURL()
		if err != nil {
			return "", err
		}
		if tmp, err = s.tempDir(); err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		repo := filepath.Join(tmp, "repo")
		if k.Commit, err = clone(url, src.Ref, "", repo); err != nil {
			return "", err
		}
		mp, err := inside(repo, manifestRel(src))
		if err != nil {
			return "", err
		}
		if m, err = readManifest(mp); err != nil {
			return "", err
		}
		k.InstallLocation = filepath.Join(s.Dir(), "marketplaces", m.Name)
	default:
		return "", fmt.Errorf("marketplace source %q is not supported: use a folder, a git URL or OWNER/REPO (ouro fetches with git only)", src.Source)
	}
	if old, dup := known[m.Name]; dup {
		return "", fmt.Errorf("marketplace %q is already known (from %s); remove it first with `ouro plugin marketplace remove %s`", m.Name, old.Source, m.Name)
	}
	if tmp != "" {
		if err := os.MkdirAll(filepath.Dir(k.InstallLocation), 0o700); err != nil {
			return "", err
		}
		_ = os.RemoveAll(k.InstallLocation)
		if err := os.Rename(filepath.Join(tmp, "repo"), k.InstallLocation); err != nil {
			return "", err
		}
	}
	known[m.Name] = k
	return m.Name, writeJSON(s.knownPath(), known)
}

func manifestRel(src Source) string {
	if src.Path != "" && src.Source != KindDirectory {
		return src.Path
	}
	return ManifestPath
}

// RemoveMarket forgets a marketplace and deletes its clone. Plugins installed from it
// stay installed (their copies are their own).
func (s Store) RemoveMarket(name string) error {
	known, err := s.Markets()
	if err != nil {
		return err
	}
	k, ok := known[name]
	if !ok {
		return fmt.Errorf("unknown marketplace %q (known: %s)", name, orNone(IDs(known)))
	}
	delete(known, name)
	if err := writeJSON(s.knownPath(), known); err != nil {
		return err
	}
	if within(filepath.Join(s.Dir(), "marketplaces"), k.InstallLocation) {
		return os.RemoveAll(k.InstallLocation)
	}
	return nil
}

// market finds a known marketplace: one added, or one a settings file's
// extraKnownMarketplaces declares (added now, under the same strict list).
func (s Store) market(name string, p Policy) (Known, error) {
	known, err := s.Markets()
	if err != nil {
		return Known{}, err
	}
	if k, ok := known[name]; ok {
		if err := p.Allows(k.Source); err != nil {
			return Known{}, err
		}
		return k, nil
	}
	if src, ok := p.Extra[name]; ok {
		got, err := s.AddMarket(src, p)
		if err != nil {
			return Known{}, fmt.Errorf("marketplace %q (extraKnownMarketplaces in %s): %v", name, p.ExtraFrom[name], err)
		}
		if got != name {
			_ = s.RemoveMarket(got)
			return Known{}, fmt.Errorf("marketplace %q (extraKnownMarketplaces in %s) calls itself %q in its marketplace.json", name, p.ExtraFrom[name], got)
		}
		known, _ = s.Markets()
		return known[name], nil
	}
	var all []string
	all = append(all, IDs(known)...)
	for n := range p.Extra {
		all = append(all, n)
	}
	return Known{}, fmt.Errorf("unknown marketplace %q (known: %s); add it with `ouro plugin marketplace add SOURCE`", name, orNone(all))
}

// Install installs plugin name@market into the store, pinned to the commit it comes
// from, and returns its record.
func (s Store) Install(id string, p Policy) (Install, error) {
	name, mname, err := SplitID(id)
	if err != nil {
		return Install{}, err
	}
	if !validMarketName(name) || !validMarketName(mname) {
		return Install{}, fmt.Errorf("%q: a plugin's and a marketplace's names may hold only letters, digits, '.', '_' and '-'", id)
	}
	k, err := s.market(mname, p)
	if err != nil {
		return Install{}, err
	}
	mp, err := inside(k.InstallLocation, manifestRel(k.Source))
	if err != nil {
		return Install{}, err
	}
	m, err := readManifest(mp)
	if err != nil {
		return Install{}, err
	}
	e, ok := m.find(name)
	if !ok {
		return Install{}, fmt.Errorf("plugin %q is not in marketplace %q (it lists: %s)", name, mname, m.names(12))
	}
	rel, src, err := entrySource(e.Source)
	if err != nil {
		return Install{}, fmt.Errorf("plugin %q of marketplace %q: \"source\": %v", name, mname, err)
	}
	tmp, err := s.tempDir()
	if err != nil {
		return Install{}, err
	}
	defer os.RemoveAll(tmp)
	var dir, commit string
	if rel != "" {
		if dir, err = inside(k.InstallLocation, filepath.Join(m.Metadata.PluginRoot, rel)); err != nil {
			return Install{}, fmt.Errorf("plugin %q of marketplace %q: %v", name, mname, err)
		}
		commit, _ = head(k.InstallLocation)
	} else {
		switch src.Source {
		case KindGitHub, KindURL, KindGit, KindGitSubdir:
			url, err := src.gitURL()
			if err != nil {
				return Install{}, fmt.Errorf("plugin %q: %v", name, err)
			}
			repo := filepath.Join(tmp, "repo")
			if commit, err = clone(url, src.Ref, src.SHA, repo); err != nil {
				return Install{}, fmt.Errorf("plugin %q: %v", name, err)
			}
			dir = repo
			if src.Source == KindGitSubdir {
				if dir, err = inside(repo, src.Path); err != nil {
					return Install{}, fmt.Errorf("plugin %q: %v", name, err)
				}
			}
		default:
			return Install{}, fmt.Errorf("plugin %q of marketplace %q comes from a %q source, which ouro does not fetch (only a path in the marketplace, github, url and git-subdir: git only)", name, mname, src.Source)
		}
	}
	ps, warns := plugin.Load([]string{dir})
	if len(ps) == 0 {
		return Install{}, fmt.Errorf("plugin %q of marketplace %q is not a plugin ouro can load: %s", name, mname, strings.Join(warns, "; "))
	}
	key := "local"
	if len(commit) >= 12 {
		key = commit[:12]
	} else if v := firstOf(e.Version, ps[0].Version); v != "" {
		key = v
	}
	if !validMarketName(key) {
		key = "local"
	}
	dest := filepath.Join(s.Dir(), "cache", mname, name, key)
	stage := filepath.Join(tmp, "copy")
	if err := copyPlugin(dir, stage); err != nil {
		return Install{}, err
	}
	// A plugin without a plugin.json has the marketplace's entry as its manifest, as in
	// Claude Code: the copy gets it, so it keeps its name (not its folder's).
	if mf := filepath.Join(stage, filepath.FromSlash(plugin.ManifestPath)); !fileExists(mf) {
		if err := os.MkdirAll(filepath.Dir(mf), 0o755); err != nil {
			return Install{}, err
		}
		if err := os.WriteFile(mf, e.raw, 0o644); err != nil {
			return Install{}, err
		}
	}
	_ = os.RemoveAll(dest)
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return Install{}, err
	}
	if err := os.Rename(stage, dest); err != nil {
		return Install{}, err
	}
	installed, err := s.Installed()
	if err != nil {
		return Install{}, err
	}
	rec := Install{Scope: "user", InstallPath: dest, Version: firstOf(e.Version, ps[0].Version), GitCommitSha: commit,
		InstalledAt: s.now(), LastUpdated: s.now()}
	if old, ok := installed[id]; ok {
		rec.InstalledAt = old.InstalledAt
		if old.InstallPath != dest && within(filepath.Join(s.Dir(), "cache"), old.InstallPath) {
			_ = os.RemoveAll(old.InstallPath)
		}
	}
	installed[id] = rec
	return rec, s.saveInstalled(installed)
}

// Uninstall removes an installed plugin and its copy.
func (s Store) Uninstall(id string) error {
	installed, err := s.Installed()
	if err != nil {
		return err
	}
	rec, ok := installed[id]
	if !ok {
		return fmt.Errorf("plugin %q is not installed (installed: %s)", id, orNone(IDs(installed)))
	}
	delete(installed, id)
	if err := s.saveInstalled(installed); err != nil {
		return err
	}
	if within(filepath.Join(s.Dir(), "cache"), rec.InstallPath) {
		return os.RemoveAll(rec.InstallPath)
	}
	return nil
}

// Loaded is an enabled installed plugin: its "name@market" and folder.
type Loaded struct{ ID, Dir string }

// Enabled are the folders of the installed plugins enabled says are on, for a session
// to load; warnings name each enabled plugin that is not installed (unless quiet says
// the file enabling it is not one to warn about) or whose marketplace the strict list
// refuses.
func (s Store) Enabled(enabled map[string]bool, from map[string]string, p Policy, quiet func(file string) bool) (loaded []Loaded, warnings []string) {
	ids := IDs(enabled)
	if len(ids) == 0 {
		return nil, nil
	}
	installed, err := s.Installed()
	if err != nil {
		return nil, []string{err.Error()}
	}
	known, _ := s.Markets()
	// Enabled but not installed, by the file enabling them: one line per file.
	missing := map[string][]string{}
	var files []string
	defer func() {
		for _, f := range files {
			warnings = append(warnings, fmt.Sprintf("%s enables plugins not installed in ouro: %s (install one with `ouro plugin install NAME@MARKET`)", f, strings.Join(missing[f], ", ")))
		}
	}()
	for _, id := range ids {
		if !enabled[id] {
			continue
		}
		rec, ok := installed[id]
		if !ok {
			if quiet != nil && quiet(from[id]) {
				continue
			}
			if missing[from[id]] == nil {
				files = append(files, from[id])
			}
			missing[from[id]] = append(missing[from[id]], id)
			continue
		}
		if !within(filepath.Join(s.Dir(), "cache"), rec.InstallPath) {
			warnings = append(warnings, fmt.Sprintf("plugin %s is not loaded: %s records it at %s, outside %s, where ouro installs plugins", id, s.installedPath(), rec.InstallPath, filepath.Join(s.Dir(), "cache")))
			continue
		}
		if _, mname, err := SplitID(id); err == nil && p.StrictSet {
			if k, ok := known[mname]; !ok || p.Allows(k.Source) != nil {
				warnings = append(warnings, fmt.Sprintf("plugin %s is not loaded: its marketplace is not in strictKnownMarketplaces (%s)", id, p.StrictFrom))
				continue
			}
		}
		loaded = append(loaded, Loaded{ID: id, Dir: rec.InstallPath})
	}
	return loaded, warnings
}

func (s Store) tempDir() (string, error) {
	base := filepath.Join(s.Dir(), ".tmp")
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	return os.MkdirTemp(base, "op-")
}

// copyPlugin copies the plugin's folders and regular files, leaving out .git and every
// symlink (a link could point anywhere; the copy holds only the plugin's own files).
func copyPlugin(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return nil
	})
}

// inside resolves rel within root (symlinks followed); leaving root is an error.
func inside(root, rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", fmt.Errorf("path %q must be relative to the marketplace", rel)
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	realRoot := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		realRoot = r
	}
	if !within(realRoot, p) {
		return "", fmt.Errorf("path %q leaves the marketplace's folder", rel)
	}
	return p, nil
}

func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

func fileExists(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode().IsRegular()
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func orNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}
