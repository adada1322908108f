// Package skill finds Agent Skills (folders holding a SKILL.md: YAML frontmatter and a
// Markdown body), renders the catalog the system prompt carries (names, descriptions and
// locations only, within a character budget) and offers the Skill tool that loads a
// skill's body on demand and makes its folder readable.
//
// Discovery looks in .ouro/skills, .claude/skills and .agents/skills of the project
// directory and of each parent up to the repository root, then in the same folders under
// the user's home. The first skill found under a name wins: project over user, nearer
// over farther, .ouro over .claude over .agents. Parsing is lenient: a bad or mismatched
// name is a warning (the folder name is used), a skill without a description is skipped
// with a warning. Only the frontmatter is read at discovery; the body when invoked.
package skill

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/internal/frontmatter"
	"github.com/ouroagent/ouro/internal/gitdir"
	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/settings"
	"go.yaml.in/yaml/v4"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// Limits from the Agent Skills specification.
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
)

// Folders are the skill folders looked for in each directory, highest precedence first.
var Folders = []string{".ouro/skills", ".claude/skills", ".agents/skills"}

// Scope says where a skill was found.
type Scope string

const (
	ScopeProject Scope = "project"
	ScopeUser    Scope = "user"
)

// Skill is one discovered skill: its frontmatter and where it lives. The body is not
// held; Body reads it.
type Skill struct {
	Name          string
	Description   string
	License       string
	Compatibility string
	Metadata      map[string]string
	// AllowedTools are the permission rules the skill asks for while it is in use
	// ("Read", "Bash(git diff:*)"), from allowed-tools.
	AllowedTools []string
	// DisableModelInvocation (disable-model-invocation: true) keeps the skill out of the
	// model's catalog and the Skill tool: only the user invokes it (/name).
	DisableModelInvocation bool
	// UserInvocable is false (user-invocable: false) for a skill only the model may load:
	// it is not offered as a /name command.
	UserInvocable bool
	// ArgumentHint is shown beside /name (argument-hint, e.g. "[issue-number]").
	ArgumentHint string
	// Hooks (hooks:, as in settings files) run from the skill's first use to the
	// session's end, when the file may grant them.
	Hooks map[string][]settings.HookMatcher
	// Model is the model the skill asks for (model:); "" or "inherit" for the session's.
	Model string
	// Command is true for a command file (commands/<name>.md): Dir is then the folder
	// holding it, and no files are bundled with it.
	Command bool
	// Dir is the skill's folder (absolute); Path its SKILL.md.
	Dir   string
	Path  string
	Scope Scope
}

// Warning is a problem found while discovering skills; the skill named by Path was used
// anyway or skipped, as Message says.
type Warning struct {
	Path    string
	Message string
}

func (w Warning) String() string { return w.Path + ": " + w.Message }

// Options say where to look.
type Options struct {
	// Dir is the project directory (empty: the current directory).
	Dir string
	// Home is the user's home directory (empty: os.UserHomeDir).
	Home string
	// NoUser skips the user-level folders.
	NoUser bool
	// NoProject skips the project-level folders.
	NoProject bool
}

// Catalog is the set of skills found, sorted by name.
type Catalog struct {
	skills []Skill
	byName map[string]int
}

// NewCatalog builds a catalog from skills; on a duplicate name the first wins.
func NewCatalog(skills ...Skill) *Catalog {
	c := &Catalog{byName: map[string]int{}}
	for _, s := range skills {
		if _, dup := c.byName[s.Name]; dup {
			continue
		}
		c.byName[s.Name] = -1
		c.skills = append(c.skills, s)
	}
	sort.SliceStable(c.skills, func(i, j int) bool { return c.skills[i].Name < c.skills[j].Name })
	for i, s := range c.skills {
		c.byName[s.Name] = i
	}
	return c
}

// Skills lists the skills, sorted by name.
func (c *Catalog) Skills() []Skill {
	if c == nil {
		return nil
	}
	return append([]Skill(nil), c.skills...)
}

// Len is how many skills the catalog holds.
func (c *Catalog) Len() int {
	if c == nil {
		return 0
	}
	return len(c.skills)
}

// Names lists the skills' names, sorted.
func (c *Catalog) Names() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.skills))
	for i, s := range c.skills {
		out[i] = s.Name
	}
	return out
}

// Get returns the skill called name (a leading "/" is ignored).
func (c *Catalog) Get(name string) (Skill, bool) {
	if c == nil {
		return Skill{}, false
	}
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	i, ok := c.byName[name]
	if !ok {
		return Skill{}, false
	}
	return c.skills[i], true
}

// Discover finds the skills visible from opts.Dir. It never fails: unreadable folders
// and broken files become warnings.
func Discover(opts Options) (*Catalog, []Warning) {
	var warns []Warning
	var found, commands []Skill
	seenRoot := map[string]bool{}
	scan := func(base string, scope Scope) {
		for _, f := range Folders {
			root := filepath.Join(base, filepath.FromSlash(f))
			if seenRoot[root] {
				continue
			}
			seenRoot[root] = true
			s, w := scanFolder(root, scope)
			found = append(found, s...)
			warns = append(warns, w...)
		}
		for _, f := range CommandFolders {
			root := filepath.Join(base, filepath.FromSlash(f))
			if seenRoot[root] {
				continue
			}
			seenRoot[root] = true
			s, w := scanCommands(root, scope)
			commands = append(commands, s...)
			warns = append(warns, w...)
		}
	}
	if !opts.NoProject {
		dir := opts.Dir
		if dir == "" {
			dir, _ = os.Getwd()
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		for _, d := range projectDirs(dir) {
			scan(d, ScopeProject)
		}
	}
	if !opts.NoUser {
		home := opts.Home
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		if home != "" {
			if abs, err := filepath.Abs(home); err == nil {
				home = abs
			}
			scan(home, ScopeUser)
		}
	}
	// A skill wins over a command of the same name, wherever either was found.
	return NewCatalog(append(found, commands...)...), warns
}

// projectDirs lists dir and its parents up to the nearest one holding .git (only dir
// when there is none), nearest first.
func projectDirs(dir string) []string {
	var chain []string
	for d := dir; ; {
		chain = append(chain, d)
		if gitdir.Marks(d) {
			return chain
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{dir}
		}
		d = parent
	}
}

// scanFolder reads the skills directly under root.
func scanFolder(root string, scope Scope) ([]Skill, []Warning) {
	entries, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		if st, serr := os.Stat(root); serr == nil && !st.IsDir() {
			return nil, nil
		}
		return nil, []Warning{{Path: root, Message: "cannot list skills: " + err.Error()}}
	}
	var out []Skill
	var warns []Warning
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() {
			// A symlink to a folder counts too.
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				continue
			}
		}
		path := filepath.Join(dir, FileName)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		s, w, ok := Load(dir)
		warns = append(warns, w...)
		if ok {
			s.Scope = scope
			out = append(out, s)
		}
	}
	return out, warns
}

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidName reports whether name is a valid skill name (1–64 of [a-z0-9-], no leading,
// trailing or double hyphen).
func ValidName(name string) bool {
	return len(name) >= 1 && len(name) <= MaxNameLen && nameRE.MatchString(name)
}

// header is SKILL.md's YAML frontmatter.
type header struct {
	Name          string    `yaml:"name"`
	Description   string    `yaml:"description"`
	License       string    `yaml:"license"`
	Compatibility string    `yaml:"compatibility"`
	Metadata      yaml.Node `yaml:"metadata"`
	AllowedTools  yaml.Node `yaml:"allowed-tools"`
	// Claude Code's fields.
	DisableModelInvocation yaml.Node `yaml:"disable-model-invocation"`
	UserInvocable          yaml.Node `yaml:"user-invocable"`
	ArgumentHint           yaml.Node `yaml:"argument-hint"`
	Model                  yaml.Node `yaml:"model"`
	Hooks                  yaml.Node `yaml:"hooks"`
}

// Load reads the frontmatter of dir/SKILL.md. ok is false when the skill cannot be used
// (no file, no frontmatter, no description); warnings say why or what was forgiven.
func Load(dir string) (s Skill, warns []Warning, ok bool) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return loadFile(filepath.Join(dir, FileName), dir, filepath.Base(dir), false)
}

// LoadCommand reads a command file (Claude Code's commands/<name>.md, a skill in one
// file) as a skill named after the file. Its frontmatter is optional; without a
// description the first line of its body describes it.
func LoadCommand(path string) (s Skill, warns []Warning, ok bool) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return loadFile(path, filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".md"), true)
}

func loadFile(path, dir, name string, command bool) (s Skill, warns []Warning, ok bool) {
	warn := func(format string, a ...any) {
		warns = append(warns, Warning{Path: path, Message: fmt.Sprintf(format, a...)})
	}
	f, err := regfile.Open(path)
	if err != nil {
		warn("skipped: %v", err)
		return s, warns, false
	}
	defer f.Close()
	head, found, err := readFrontmatter(regfile.LimitReader(f, path, regfile.MaxConfig))
	if err != nil {
		warn("skipped: %v", err)
		return s, warns, false
	}
	if !found && !command {
		warn("skipped: no YAML frontmatter (the file must start with a --- line, then name and description, then ---)")
		return s, warns, false
	}
	var fm header
	// Hand-written frontmatter often breaks YAML with an unquoted colon in the
	// description; it is then read line by line (internal/frontmatter).
	if _, _, err := frontmatter.Decode(head, &fm); err != nil {
		warn("skipped: %v", err)
		return s, warns, false
	}
	// Claude Code loads a missing or title-case name (the folder name is the skill's
	// name), long descriptions and colons in them without a word; so does ouro.
	s = Skill{
		Name:          name,
		Description:   strings.TrimSpace(fm.Description),
		License:       strings.TrimSpace(fm.License),
		Compatibility: strings.TrimSpace(fm.Compatibility),
		Dir:           dir,
		Path:          path,
		UserInvocable: true,
		ArgumentHint:  scalarText(&fm.ArgumentHint),
		Model:         scalarText(&fm.Model),
		Command:       command,
	}
	if s.Description == "" && command {
		if body, err := s.Body(); err == nil {
			s.Description, _, _ = strings.Cut(strings.TrimSpace(body), "\n")
			s.Description = strings.TrimSpace(strings.TrimLeft(s.Description, "# "))
		}
	}
	if s.Description == "" {
		warn("skipped: no description (the description says when to use the skill and is required)")
		return s, warns, false
	}
	var bad error
	if s.DisableModelInvocation, bad = flag(&fm.DisableModelInvocation, false); bad != nil {
		warn("disable-model-invocation: %v; the model may invoke the skill", bad)
	}
	if s.UserInvocable, bad = flag(&fm.UserInvocable, true); bad != nil {
		warn("user-invocable: %v; the user may invoke the skill", bad)
	}
	if md, err := stringMap(&fm.Metadata); err != nil {
		warn("metadata ignored: %v", err)
	} else {
		s.Metadata = md
	}
	if at, err := toolList(&fm.AllowedTools); err != nil {
		warn("allowed-tools ignored: %v", err)
	} else {
		s.AllowedTools = at
	}
	if fm.Hooks.Kind != 0 {
		if h, err := settings.HooksFromYAML(&fm.Hooks); err != nil {
			warn("hooks ignored: %v", err)
		} else {
			s.Hooks = h
		}
	}
	return s, warns, true
}

// readFrontmatter returns the text between the opening and closing --- lines, reading
// no further than the closing line.
func readFrontmatter(r io.Reader) (head []byte, found bool, err error) {
	br := bufio.NewReader(r)
	first, err := br.ReadString('\n')
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	first = strings.TrimPrefix(first, "\ufeff")
	if strings.TrimRight(first, " \t\r\n") != "---" {
		return nil, false, nil
	}
	var buf bytes.Buffer
	for {
		line, err := br.ReadString('\n')
		if t := strings.TrimRight(line, " \t\r\n"); t == "---" || t == "..." {
			return buf.Bytes(), true, nil
		}
		buf.WriteString(line)
		if err == io.EOF {
			return nil, false, errors.New("the frontmatter has no closing --- line")
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// splitFrontmatter separates a whole SKILL.md into frontmatter and body.
func splitFrontmatter(data string) (head, body string) {
	data = strings.TrimPrefix(data, "\ufeff")
	first, rest, ok := strings.Cut(data, "\n")
	if !ok || strings.TrimRight(first, " \t\r") != "---" {
		return "", data
	}
	off := 0
	for off <= len(rest) {
		line, _, _ := strings.Cut(rest[off:], "\n")
		if t := strings.TrimRight(line, " \t\r"); t == "---" || t == "..." {
			end := off + len(line)
			if end < len(rest) {
				end++
			}
			return rest[:off], rest[end:]
		}
		if off+len(line) >= len(rest) {
			break
		}
		off += len(line) + 1
	}
	return "", data
}

// flag reads a YAML boolean (true/false, also as the strings a loose header gives);
// absent means def.
func flag(n *yaml.Node, def bool) (bool, error) {
	if n.Kind == 0 || n.Tag == "!!null" {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(n.Value)) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off":
		return false, nil
	}
	return def, fmt.Errorf("%q is not true or false", n.Value)
}

// scalarText is a scalar's text, or "" for anything else (argument-hint: [n] is a list in
// strict YAML but means the text "[n]").
func scalarText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return ""
		}
		return strings.TrimSpace(n.Value)
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			parts = append(parts, c.Value)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return ""
}

func stringMap(n *yaml.Node) (map[string]string, error) {
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, errors.New("metadata must be a map of strings")
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("metadata %q is not a string", k.Value)
		}
		out[k.Value] = v.Value
	}
	return out, nil
}

// toolList reads allowed-tools: a YAML list, or a string of rules separated by commas
// or spaces (spaces inside parentheses, as in "Bash(git add:*)", belong to the rule).
func toolList(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
		return SplitTools(n.Value), nil
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, errors.New("each entry must be a string")
			}
			if v := strings.TrimSpace(c.Value); v != "" {
				out = append(out, v)
			}
		}
		return out, nil
	}
	return nil, errors.New("must be a string or a list of strings")
}

// SplitTools splits an allowed-tools string on commas and white space outside
// parentheses.
func SplitTools(s string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			if depth > 0 {
				depth--
			}
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

// Body reads the skill's Markdown body (SKILL.md without its frontmatter).
func (s Skill) Body() (string, error) {
	data, err := regfile.Read(s.Path, regfile.MaxConfig)
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", s.Name, err)
	}
	_, body := splitFrontmatter(string(data))
	return strings.TrimSpace(body), nil
}
