package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// globMaxResults is how many paths one Glob call shows, as in Claude Code.
const globMaxResults = 100

// Glob finds files by name pattern, newest first.
type Glob struct {
	ws *workspace.Workspace
}

// NewGlob returns the Glob tool searching inside ws.
func NewGlob(ws *workspace.Workspace) *Glob { return &Glob{ws: ws} }

// ReadOnly implements tool.Tool.
func (g *Glob) ReadOnly() bool { return true }

// Describe implements tool.Describer: a call searches the folder its path names, or the
// one an absolute or climbing pattern starts from.
func (g *Glob) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeGlob(input)
}

// Spec implements tool.Tool.
func (g *Glob) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Glob", Description: globDescription, InputSchema: json.RawMessage(globSchema)}
}

const globDescription = `Finds files by name with a glob pattern.
- "*" matches within one path segment, "**" any number of directories, "?" one character, "{ts,tsx}" alternatives: "**/*.go" finds Go files at any depth, "*.go" only in the directory searched.
- The pattern is matched against paths relative to path (default: the working directory).
- Returns files (not directories), newest first, at most 100; a last line says how many more matched.
- Files .gitignore excludes and .git are skipped, unless named in path or the pattern's leading part ("vendor/**/*.go"); symbolic links are not followed.
- To search file contents, use Grep.`

const globSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "The glob pattern, e.g. \"**/*.go\" or \"src/**/*.{ts,tsx}\""},
    "path": {"type": "string", "description": "An existing directory to search in; omit it for the working directory (never pass \"undefined\" or \"null\")"}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

type globInput struct {
	Pattern *string `json:"pattern"`
	Path    *string `json:"path"`
}

// globMatch is one file found.
type globMatch struct {
	abs   string
	mtime time.Time
}

// Run implements tool.Tool.
func (g *Glob) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	var in globInput
	if err := decodeInput("Glob", input, &in); err != nil {
		return tool.Result{}, err
	}
	if in.Pattern == nil {
		return tool.Result{}, errors.New("invalid Glob input: pattern is required")
	}
	pattern := strings.TrimSpace(*in.Pattern)
	if pattern == "" {
		return tool.Result{}, errors.New("invalid Glob input: pattern must not be empty")
	}
	dir := optionalPath(in.Path)
	root, info, err := resolveSearchPath(g.ws, "Glob", dir)
	if err != nil {
		return tool.Result{}, err
	}
	if !info.IsDir() {
		return tool.Result{}, fmt.Errorf("Glob: path %q is a file, not a directory; give the directory to search in", dir)
	}
	// The pattern's fixed leading part ("src/" in "src/**/*.ts", or an absolute
	// directory) is where the walk starts.
	base, rest := doublestar.SplitPattern(pattern)
	if !doublestar.ValidatePattern(rest) {
		return tool.Result{}, fmt.Errorf("invalid Glob input: pattern %q is not a valid glob (check that [ and { are closed)", pattern)
	}
	if base != "." {
		if !path.IsAbs(base) {
			base = root + "/" + base
		}
		start, err := g.ws.Resolve(base)
		if err != nil {
			return tool.Result{}, fmt.Errorf("Glob: %w", err)
		}
		if st, err := statDir(start); err != nil || !st {
			return tool.Text(fmt.Sprintf("No files found matching %q in %s (%s does not exist or is not a directory).", pattern, displayPath(g.ws, root), displayPath(g.ws, start))), nil
		}
		root = start
	}

	matches, err := globFiles(ctx, g.ws, root, rest)
	if err != nil {
		return tool.Result{}, fmt.Errorf("Glob %q: %w", pattern, err)
	}
	if len(matches) == 0 {
		return tool.Text(fmt.Sprintf("No files found matching %q in %s.", pattern, displayPath(g.ws, root))), nil
	}
	slices.SortFunc(matches, func(a, b globMatch) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return cmp.Compare(a.abs, b.abs)
	})
	var sb strings.Builder
	for i, m := range matches {
		if i == globMaxResults {
			break
		}
		sb.WriteString(displayPath(g.ws, m.abs))
		sb.WriteByte('\n')
	}
	if more := len(matches) - globMaxResults; more > 0 {
		fmt.Fprintf(&sb, "(Results are truncated: showing the %d most recently modified of %d matching files; %d more matched. Use a more specific path or pattern.)\n",
			globMaxResults, len(matches), more)
	}
	return tool.Text(strings.TrimSuffix(sb.String(), "\n")), nil
}

// globFiles walks root and returns the regular files whose path relative to root
// matches pattern, skipping what .gitignore excludes.
func globFiles(ctx context.Context, ws *workspace.Workspace, root, pattern string) ([]globMatch, error) {
	segments := strings.Split(pattern, "/")
	// Directories are pruned against the segments before the first "**": "a/*/b/*.go"
	// never enters a directory that is not a/<something>/b.
	fixed := len(segments)
	for i, s := range segments {
		if strings.Contains(s, "**") {
			fixed = i
			break
		}
	}
	if strings.Contains(pattern, "{") {
		fixed = 0 // an alternative may hold a slash ("{a,b/c}/*.go"): segments mean nothing
	}
	opt := walkOptions{Gitignore: true}
	if fixed == len(segments) {
		opt.MaxDepth = len(segments)
	}
	var (
		mu      sync.Mutex
		matches []globMatch
	)
	err := walkTree(ctx, ws, root, opt, func(e *walkEntry) error {
		if e.Dir {
			if e.Depth <= fixed && e.Depth < len(segments) {
				if ok, err := doublestar.Match(strings.Join(segments[:e.Depth], "/"), e.Rel); !ok && err == nil {
					return fs.SkipDir
				}
			}
			return nil
		}
		if e.Link || !e.Type.IsRegular() {
			return nil
		}
		if ok, _ := doublestar.Match(pattern, e.Rel); !ok {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil // removed since it was listed
		}
		mu.Lock()
		matches = append(matches, globMatch{abs: e.Abs, mtime: info.ModTime()})
		mu.Unlock()
		return nil
	})
	return matches, err
}

// optionalPath returns the path field, treating the strings some models send for an
// absent value as absent.
func optionalPath(p *string) string {
	if p == nil {
		return ""
	}
	s := strings.TrimSpace(*p)
	if s == "undefined" || s == "null" {
		return ""
	}
	return s
}

func statDir(p string) (bool, error) {
	st, err := os.Stat(p)
	if err != nil {
		return false, err
	}
	return st.IsDir(), nil
}
