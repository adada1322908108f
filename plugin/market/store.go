package market

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/atomicfile"
	"github.com/ouroagent/ouro/internal/regfile"
)

// Store is ouro's record of marketplaces and installed plugins, under Home/plugins
// (Home is ouro's home, ~/.ouro): known_marketplaces.json, installed_plugins.json (the
// shapes of Claude Code's files of those names in ~/.claude/plugins), marketplaces/<name>
// (the clones of git marketplaces) and cache/<market>/<plugin>/<commit>/ (the copies
// installed). ouro keeps its own: Claude Code's folder belongs to Claude Code, and a
// plugin ouro installed must not appear there under a record Claude Code did not write.
type Store struct {
	Home string
	// Now stamps the records; nil → time.Now.
	Now func() time.Time
}

// Dir is the store's folder.
func (s Store) Dir() string { return filepath.Join(s.Home, "plugins") }

func (s Store) now() string {
	if s.Now != nil {
		return s.Now().UTC().Format(time.RFC3339)
	}
	return time.Now().UTC().Format(time.RFC3339)
}

// Known is one known marketplace.
type Known struct {
	Source Source `json:"source"`
	// InstallLocation is the marketplace's root: the folder of a directory source, the
	// clone of a git one.
	InstallLocation string `json:"installLocation"`
	// Commit is the clone's commit when it was added.
	Commit      string `json:"commit,omitempty"`
	LastUpdated string `json:"lastUpdated"`
}

// Install is one installed plugin.
type Install struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version,omitempty"`
	// GitCommitSha is the commit the plugin was installed from (the marketplace's, for
	// a plugin inside it; the plugin repository's otherwise); "" for a folder that is no
	// git work tree.
	GitCommitSha string `json:"gitCommitSha,omitempty"`
	InstalledAt  string `json:"installedAt"`
	LastUpdated  string `json:"lastUpdated"`
}

type installedFile struct {
	Version int                  `json:"version"`
	Plugins map[string][]Install `json:"plugins"`
}

// InstalledFile is the record of installed plugins, which says which folders a session
// loads: a session watches it like the settings files (package grant).
func (s Store) InstalledFile() string { return s.installedPath() }

func (s Store) knownPath() string     { return filepath.Join(s.Dir(), "known_marketplaces.json") }
func (s Store) installedPath() string { return filepath.Join(s.Dir(), "installed_plugins.json") }

func readJSON(path string, v any) error {
	data, err := regfile.Read(path, regfile.MaxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s is not valid JSON (%v); fix or remove it", path, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o600)
}

// Markets are the marketplaces added with `ouro plugin marketplace add`.
func (s Store) Markets() (map[string]Known, error) {
	m := map[string]Known{}
	return m, readJSON(s.knownPath(), &m)
}

// Installed are the installed plugins by "name@market".
func (s Store) Installed() (map[string]Install, error) {
	var f installedFile
	if err := readJSON(s.installedPath(), &f); err != nil {
		return nil, err
	}
	out := map[string]Install{}
	for id, list := range f.Plugins {
		if len(list) > 0 {
			out[id] = list[0]
		}
	}
	return out, nil
}

func (s Store) saveInstalled(in map[string]Install) error {
	f := installedFile{Version: 2, Plugins: map[string][]Install{}}
	for id, i := range in {
		f.Plugins[id] = []Install{i}
	}
	return writeJSON(s.installedPath(), f)
}

// SplitID splits "name@market".
func SplitID(id string) (name, market string, err error) {
	name, market, ok := strings.Cut(id, "@")
	if !ok || name == "" || market == "" || strings.Contains(market, "@") {
		return "", "", fmt.Errorf("%q is not NAME@MARKETPLACE", id)
	}
	return name, market, nil
}

// IDs sorts a map's keys.
func IDs[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
