// Package market installs Claude Code plugins from marketplaces, as `claude plugin`
// does: a marketplace is a folder or a git repository holding
// .claude-plugin/marketplace.json (name, owner, plugins[{name, source, description,
// version}]). Known marketplaces (`ouro plugin marketplace add`, or a settings file's
// extraKnownMarketplaces) and installed plugins are kept under ouro's home
// (~/.ouro/plugins), each plugin copied there pinned to the commit it was installed
// from. A settings file's enabledPlugins ({"name@market": true}) says which installed
// plugins a session loads; managed settings' strictKnownMarketplaces bounds which
// marketplaces may be used at all. git is the only way anything is fetched, run as a
// program with its arguments, never through a shell.
package market

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ouroagent/ouro/internal/regfile"
)

// Source is where a marketplace or a plugin comes from, in Claude Code's shape:
// {"source": "directory", "path"}, {"source": "git", "url", "ref"?},
// {"source": "github", "repo", "ref"?}; a plugin entry may also be {"source": "url",
// "url", "ref"?, "sha"?} (a git URL) or {"source": "git-subdir", "url", "path", "ref"?,
// "sha"?}. For a git or github marketplace, Path is where its marketplace.json is.
type Source struct {
	Source string `json:"source"`
	Path   string `json:"path,omitempty"`
	URL    string `json:"url,omitempty"`
	Repo   string `json:"repo,omitempty"`
	Ref    string `json:"ref,omitempty"`
	SHA    string `json:"sha,omitempty"`
	// HostPattern and PathPattern are strictKnownMarketplaces' pattern entries
	// ({"source": "hostPattern", "hostPattern": regex}).
	HostPattern string `json:"hostPattern,omitempty"`
	PathPattern string `json:"pathPattern,omitempty"`
}

// Source kinds.
const (
	KindDirectory = "directory"
	KindGit       = "git"
	KindGitHub    = "github"
	KindURL       = "url"
	KindGitSubdir = "git-subdir"
)

// GitHubBase is where a github source's repository is cloned from
// (https://github.com/OWNER/REPO.git); tests point it at a local folder.
var GitHubBase = "https://github.com/"

// String says where the source is, for the user.
func (s Source) String() string {
	switch s.Source {
	case KindDirectory:
		return s.Path
	case KindGitHub:
		return s.Repo + refSuffix(s.Ref)
	default:
		return s.URL + refSuffix(s.Ref)
	}
}

func refSuffix(ref string) string {
	if ref == "" {
		return ""
	}
	return "#" + ref
}

// gitURL is the URL git clones for a git, github, url or git-subdir source.
func (s Source) gitURL() (string, error) {
	switch s.Source {
	case KindGitHub:
		if !repoRE.MatchString(s.Repo) {
			return "", fmt.Errorf("github repo %q is not OWNER/REPO", s.Repo)
		}
		return GitHubBase + s.Repo + ".git", nil
	case KindGit, KindURL, KindGitSubdir:
		return s.URL, checkGitURL(s.URL)
	}
	return "", fmt.Errorf("a %q source is not a git repository", s.Source)
}

var repoRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

// checkGitURL lets git fetch over https, http, ssh (also user@host:path), git and from
// local repositories (file://, an absolute path) only: never a transport that runs a
// command (ext::), nor anything git could read as an option.
func checkGitURL(u string) error {
	switch {
	case u == "":
		return fmt.Errorf("a git source needs a \"url\"")
	case strings.HasPrefix(u, "-"):
		return fmt.Errorf("git URL %q may not start with '-'", u)
	case strings.Contains(u, "::"):
		return fmt.Errorf("git URL %q names a remote helper (::), which ouro does not run", u)
	}
	for _, p := range []string{"https://", "http://", "ssh://", "git://", "file://"} {
		if strings.HasPrefix(u, p) {
			return nil
		}
	}
	if filepath.IsAbs(u) || scpRE.MatchString(u) {
		return nil
	}
	return fmt.Errorf("git URL %q: use https://, ssh://, git@host:path, file:// or an absolute path", u)
}

var scpRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:[^:]`)

// ParseSource reads `ouro plugin marketplace add`'s argument as Claude Code does:
// OWNER/REPO[#ref] is github; a git URL (https://….git, git@…, ssh://, file://)[#ref] is
// git; a path (./, /, ~, or an existing folder) is a directory.
func ParseSource(arg, cwd string) (Source, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return Source{}, fmt.Errorf("name a marketplace: OWNER/REPO, a git URL or a folder")
	}
	local := strings.HasPrefix(arg, "./") || strings.HasPrefix(arg, "../") || strings.HasPrefix(arg, "/") || strings.HasPrefix(arg, "~") || arg == "."
	if !local {
		if st, err := os.Stat(filepath.Join(cwd, arg)); err == nil && st.IsDir() && !strings.Contains(arg, ":") {
			local = true
		}
	}
	if local {
		p := arg
		if strings.HasPrefix(p, "~") {
			home, err := os.UserHomeDir()
			if err != nil {
				return Source{}, err
			}
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return Source{Source: KindDirectory, Path: filepath.Clean(p)}, nil
	}
	base, ref, _ := strings.Cut(arg, "#")
	if repoRE.MatchString(base) && !strings.Contains(base, ":") {
		return Source{Source: KindGitHub, Repo: base, Ref: ref}, nil
	}
	if err := checkGitURL(base); err != nil {
		return Source{}, err
	}
	return Source{Source: KindGit, URL: base, Ref: ref}, nil
}

// Manifest is .claude-plugin/marketplace.json.
type Manifest struct {
	Name  string `json:"name"`
	Owner struct {
		Name string `json:"name"`
	} `json:"owner"`
	Plugins  []Entry `json:"plugins"`
	Metadata struct {
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
}

// Entry is one plugin of a marketplace.
type Entry struct {
	Name        string          `json:"name"`
	Source      json.RawMessage `json:"source"`
	Description string          `json:"description"`
	Version     string          `json:"version"`
	// raw is the entry as written: for a plugin without a plugin.json it is the
	// manifest (Claude Code's "strict": false).
	raw json.RawMessage
}

// UnmarshalJSON keeps the entry as written besides its fields.
func (e *Entry) UnmarshalJSON(data []byte) error {
	type plain Entry
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*e = Entry(p)
	e.raw = append(json.RawMessage(nil), data...)
	return nil
}

// ManifestPath is where a marketplace's manifest is, relative to its root.
const ManifestPath = ".claude-plugin/marketplace.json"

var marketNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// validMarketName: no spaces, '/', or "..", as Claude Code requires (the name is a
// folder under ~/.ouro/plugins).
func validMarketName(n string) bool {
	return marketNameRE.MatchString(n) && !strings.Contains(n, "..") && n != "."
}

// readManifest reads the marketplace.json at path.
func readManifest(path string) (*Manifest, error) {
	data, err := regfile.Read(path, regfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("no marketplace here: %w", err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", path, err)
	}
	if !validMarketName(m.Name) {
		return nil, fmt.Errorf("%s: the marketplace's name %q may hold only letters, digits, '.', '_' and '-'", path, m.Name)
	}
	return &m, nil
}

// find returns the entry called name.
func (m *Manifest) find(name string) (Entry, bool) {
	for _, e := range m.Plugins {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// names lists the marketplace's plugins, at most max of them.
func (m *Manifest) names(max int) string {
	var out []string
	for i, e := range m.Plugins {
		if i == max {
			out = append(out, fmt.Sprintf("… %d in all", len(m.Plugins)))
			break
		}
		out = append(out, e.Name)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// entrySource reads an entry's source: "./path" (relative to the marketplace) or an
// object.
func entrySource(raw json.RawMessage) (rel string, src Source, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", Source{}, fmt.Errorf("it has no \"source\"")
	}
	if raw[0] == '"' {
		err = json.Unmarshal(raw, &rel)
		return rel, Source{}, err
	}
	err = json.Unmarshal(raw, &src)
	return "", src, err
}
