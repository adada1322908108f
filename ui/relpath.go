package ui

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/tool"
)

// pathKeys are the input fields of the tools that name one file or folder.
var pathKeys = []string{"file_path", "notebook_path", "path"}

// RelPath shows p relative to root when it lies inside root ("." for root itself); any
// other path is kept as given.
func RelPath(p, root string) string {
	if root == "" || !filepath.IsAbs(p) {
		return p
	}
	roots := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != roots[0] {
		roots = append(roots, real)
	}
	for _, r := range roots {
		rel, err := filepath.Rel(r, filepath.Clean(p))
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	return p
}

// RelInput is a call's input with its path fields (file_path, notebook_path, path)
// relative to root when they lie inside it, for showing the call on screen; the input
// itself is returned when nothing changes.
func RelInput(input []byte, root string) []byte {
	if root == "" {
		return input
	}
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return input
	}
	changed := false
	for _, k := range pathKeys {
		if v, ok := m[k].(string); ok {
			if rel := RelPath(v, root); rel != v {
				m[k], changed = rel, true
			}
		}
	}
	if !changed {
		return input
	}
	out, err := json.Marshal(m)
	if err != nil {
		return input
	}
	return out
}

// ToolSummary is the one-line summary of a call shown in a tool block: its command,
// file, pattern or URL, paths inside root shown relative to it.
func ToolSummary(c tool.Call, root string) string {
	c.Input = RelInput(c.Input, root)
	return permission.SummarizeInput(c)
}
