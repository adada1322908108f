package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ouroagent/ouro/internal/textcut"
)

// RenderMessages is a conversation as plain text for a side call that reads it (memory
// extraction, a hook's judge): each message as "role: text", its tool calls and results
// clipped, whole messages kept from the end up to max characters (0: no limit).
func RenderMessages(msgs []Message, max int) string {
	var parts []string
	total := 0
	for i := len(msgs) - 1; i >= 0 && (max <= 0 || total < max); i-- {
		var b strings.Builder
		for _, blk := range msgs[i].Content {
			switch blk.Type {
			case BlockText:
				b.WriteString(blk.Text + "\n")
			case BlockToolUse:
				in, _ := json.Marshal(blk.Input)
				fmt.Fprintf(&b, "[tool call %s %s]\n", blk.Name, textcut.Bytes(string(in), 500, "…"))
			case BlockToolResult:
				label := "tool result"
				if blk.IsError {
					label = "tool error"
				}
				fmt.Fprintf(&b, "[%s] %s\n", label, textcut.Bytes(blk.ResultText(), 1500, "…"))
			}
		}
		if t := strings.TrimSpace(b.String()); t != "" {
			part := string(msgs[i].Role) + ": " + t
			total += len(part)
			parts = append(parts, part)
		}
	}
	for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
		parts[l], parts[r] = parts[r], parts[l]
	}
	return strings.Join(parts, "\n\n")
}

// DecodeJSONIn decodes the outermost open…close span of a model's answer ('{' and '}'
// for an object, '[' and ']' for a list): models wrap JSON in prose or code fences.
func DecodeJSONIn(text string, open, close byte, v any) error {
	i := strings.IndexByte(text, open)
	j := strings.LastIndexByte(text, close)
	if i < 0 || j < i {
		return fmt.Errorf("no JSON in the answer %q", textcut.Bytes(text, 200, "…"))
	}
	return json.Unmarshal([]byte(text[i:j+1]), v)
}
