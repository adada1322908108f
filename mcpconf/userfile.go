package mcpconf

import "encoding/json"

// EditUserProject edits projects[dir] of the user's ~/.ouro.json (home is the user's home
// folder): the same locked, atomic rewrite `ouro mcp approve` uses, for the other
// per-project choices kept there (package trust's hasTrustDialogAccepted).
func EditUserProject(home, dir string, edit func(project map[string]json.RawMessage) error) error {
	return editUserFile(UserFile(home), func(doc map[string]json.RawMessage) error {
		return editProject(doc, dir, edit)
	})
}
