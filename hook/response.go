package hook

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/tool"
)

// toolResponse is PostToolUse's tool_response: the fields of Claude Code's per-tool
// responses that hook scripts read (filePath for the file tools, stdout for Bash,
// filenames for Glob), plus success, and content with the whole text ouro's tools
// answer with.
func toolResponse(c tool.Call, res *tool.Result, cwd string) json.RawMessage {
	text := res.Text()
	resp := map[string]any{"content": text, "success": !res.IsError}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		OldString    string `json:"old_string"`
		NewString    string `json:"new_string"`
		ReplaceAll   bool   `json:"replace_all"`
		Content      string `json:"content"`
	}
	_ = json.Unmarshal(c.Input, &in)
	abs := func(p string) string {
		if p != "" && !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return p
	}
	switch c.Name {
	case "Write", "Edit", "MultiEdit", "Read", "NotebookEdit":
		p := in.FilePath
		if c.Name == "NotebookEdit" {
			p = in.NotebookPath
		}
		p = abs(p)
		if len(res.Files) > 0 {
			p = res.Files[0].Path // the real path the tool wrote
		}
		resp["filePath"] = p
		switch c.Name {
		case "Write":
			resp["type"] = "update"
			if len(res.Files) > 0 && res.Files[0].Before == "" {
				resp["type"] = "create"
			}
			resp["content"] = in.Content
		case "Edit":
			resp["oldString"], resp["newString"], resp["replaceAll"] = in.OldString, in.NewString, in.ReplaceAll
		}
	case "Bash":
		resp["stdout"], resp["stderr"], resp["interrupted"], resp["isImage"] = text, "", false, false
	case "Glob":
		var names []string
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "(") && l != "No files found" {
				names = append(names, l)
			}
		}
		resp["filenames"], resp["numFiles"] = names, len(names)
	}
	out, _ := json.Marshal(resp)
	return out
}
