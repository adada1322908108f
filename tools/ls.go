package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

const (
	// lsMaxEntries is how many entries one listing shows.
	lsMaxEntries = 1000
	// lsMaxCount is how far entries beyond those shown are counted.
	lsMaxCount = 100_000
)

// LS lists a directory tree.
type LS struct {
	ws *workspace.Workspace
}

// NewLS returns the LS tool listing inside ws.
func NewLS(ws *workspace.Workspace) *LS { return &LS{ws: ws} }

// ReadOnly implements tool.Tool.
func (l *LS) ReadOnly() bool { return true }

// Describe implements tool.Describer: a call lists the folder its path names.
func (l *LS) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSearch(input)
}

// Spec implements tool.Tool.
func (l *LS) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "LS", Description: lsDescription, InputSchema: json.RawMessage(lsSchema)}
}

const lsDescription = `Lists a directory's files and directories recursively, as a tree (directories end with /).
- path should be absolute; a relative one is taken from the working directory.
- Entries .gitignore excludes and .git are left out; ignore adds glob patterns to leave out ("node_modules", "*.log", "build/**").
- At most 1000 entries, the shallowest first; a note gives the total. List a subdirectory to see deeper.
- Symbolic links show as "name -> target" and are not followed.
- Prefer Glob and Grep when you know what you are looking for.`

const lsSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "The absolute path to the directory to list"},
    "ignore": {"type": "array", "items": {"type": "string"}, "description": "List of glob patterns to ignore"}
  },
  "required": ["path"],
  "additionalProperties": false
}`

type lsInput struct {
	Path   *string   `json:"path"`
	Ignore *[]string `json:"ignore"`
}

// lsNode is one entry of the tree.
type lsNode struct {
	name     string
	dir      bool
	target   string // symlink target, shown
	children []*lsNode
}

// Run implements tool.Tool.
func (l *LS) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	var in lsInput
	if err := decodeInput("LS", input, &in); err != nil {
		return tool.Result{}, err
	}
	if in.Path == nil {
		return tool.Result{}, errors.New("invalid LS input: path is required")
	}
	if strings.TrimSpace(*in.Path) == "" {
		return tool.Result{}, errors.New("invalid LS input: path must not be empty")
	}
	var ignore []string
	if in.Ignore != nil {
		for i, p := range *in.Ignore {
			p = strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/")
			if p == "" || !doublestar.ValidatePattern(p) {
				return tool.Result{}, fmt.Errorf("invalid LS input: ignore[%d] %q is not a valid glob pattern", i, (*in.Ignore)[i])
			}
			ignore = append(ignore, p)
		}
	}
	root, info, err := resolveSearchPath(l.ws, "LS", *in.Path)
	if err != nil {
		return tool.Result{}, err
	}
	if !info.IsDir() {
		return tool.Result{}, fmt.Errorf("LS: %s is a file, not a directory; use Read to see its content", *in.Path)
	}

	top := &lsNode{dir: true}
	dirs := map[string]*lsNode{"": top}
	total := 0
	err = walkTree(ctx, l.ws, root, walkOptions{Gitignore: true, Ordered: true}, func(e *walkEntry) error {
		for _, p := range ignore {
			if m, _ := doublestar.Match(p, e.Name); m {
				return fs.SkipDir
			}
			if m, _ := doublestar.Match(p, e.Rel); m {
				return fs.SkipDir
			}
		}
		total++
		if total > lsMaxCount {
			return fs.SkipAll
		}
		if total > lsMaxEntries {
			return nil
		}
		parent := dirs[strings.TrimSuffix(e.Rel[:len(e.Rel)-len(e.Name)], "/")]
		if parent == nil {
			return fs.SkipDir // its directory was not listed
		}
		n := &lsNode{name: e.Name, dir: e.Dir}
		if e.Link {
			n.target = displayPath(l.ws, e.Target)
		}
		parent.children = append(parent.children, n)
		if e.Dir {
			dirs[e.Rel] = n
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Result{}, fmt.Errorf("LS: %w", err)
	}

	var sb strings.Builder
	if total > lsMaxEntries {
		count := fmt.Sprintf("%d", total)
		if total > lsMaxCount {
			count = fmt.Sprintf("more than %d", lsMaxCount)
		}
		fmt.Fprintf(&sb, "There are %s entries under %s; the first %d, shallowest first, are listed. List a subdirectory, or use Glob or Grep, to see the rest.\n\n",
			count, root, lsMaxEntries)
	}
	fmt.Fprintf(&sb, "- %s/\n", strings.TrimSuffix(root, "/"))
	if len(top.children) == 0 {
		sb.WriteString("  (empty")
		if len(ignore) > 0 {
			sb.WriteString(", or everything is ignored")
		}
		sb.WriteString(")\n")
	}
	writeLSTree(&sb, top.children, 1)
	return tool.Text(strings.TrimSuffix(sb.String(), "\n")), nil
}

func writeLSTree(sb *strings.Builder, nodes []*lsNode, depth int) {
	for _, n := range nodes {
		sb.WriteString(strings.Repeat("  ", depth))
		sb.WriteString("- ")
		sb.WriteString(n.name)
		switch {
		case n.target != "":
			sb.WriteString(" -> ")
			sb.WriteString(n.target)
		case n.dir:
			sb.WriteByte('/')
		}
		sb.WriteByte('\n')
		writeLSTree(sb, n.children, depth+1)
	}
}
