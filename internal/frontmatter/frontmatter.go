// Package frontmatter reads the YAML header of Markdown files (skills, agents, commands)
// the way Claude Code tolerates it. Hand-written and generated headers often break strict
// YAML: an unquoted colon in a description ("Examples: user: … assistant: …", as Claude
// Code's own /agents generator writes), a stray quote. When strict YAML fails, the header is
// read line by line: each top-level "key: value" line is a string (one that only begins
// like a flow collection too: "argument-hint: [x] | y"), indented lines continue the value
// before them, and "- item" lines under a key with no value make a list.
package frontmatter

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Decode decodes head (the text between the --- lines) into v, a struct with yaml tags.
// loose reports that strict YAML failed and the line-by-line reading was used; strictErr
// is then why, for a warning. err is set only when neither reading works.
func Decode(head []byte, v any) (loose bool, strictErr, err error) {
	strictErr = yaml.Unmarshal(head, v)
	if strictErr == nil {
		return false, nil, nil
	}
	node, lerr := Loose(head)
	if lerr != nil {
		return false, strictErr, fmt.Errorf("bad YAML frontmatter: %s", FirstLine(strictErr.Error()))
	}
	if err := node.Decode(v); err != nil {
		return false, strictErr, fmt.Errorf("bad YAML frontmatter: %s", FirstLine(strictErr.Error()))
	}
	return true, strictErr, nil
}

// Loose reads head key by key: each top-level key with its indented lines is read as
// strict YAML when that works on its own (so a hooks: block keeps its structure when
// only the description breaks YAML), else line by line into a string or a list of
// strings.
func Loose(head []byte) (*yaml.Node, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	var chunk []string
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		defer func() { chunk = nil }()
		var doc yaml.Node
		if yaml.Unmarshal([]byte(strings.Join(chunk, "\n")), &doc) == nil && doc.Kind == yaml.DocumentNode &&
			len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode && len(doc.Content[0].Content) == 2 {
			m.Content = append(m.Content, doc.Content[0].Content...)
			return nil
		}
		return lineByLine(chunk, m)
	}
	for _, line := range strings.Split(string(head), "\n") {
		line = strings.TrimRight(line, "\r")
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		chunk = append(chunk, line)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return m, nil
}

// lineByLine reads one key's lines into m: "key: value" is a string, indented lines
// continue it, "- item" lines under a key with no value make a list.
func lineByLine(lines []string, m *yaml.Node) error {
	var cur *yaml.Node // the value of the last key
	for _, line := range lines {
		line = strings.TrimRight(line, "\r")
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if cur == nil {
				return fmt.Errorf("line %q is indented but follows no key", line)
			}
			if item, ok := strings.CutPrefix(t, "- "); ok && (cur.Kind == yaml.SequenceNode || cur.Value == "") {
				cur.Kind, cur.Tag, cur.Value = yaml.SequenceNode, "", ""
				cur.Content = append(cur.Content, scalar(unquote(item)))
				continue
			}
			if cur.Kind == yaml.SequenceNode {
				return fmt.Errorf("line %q continues a list but is no list item", line)
			}
			cur.Value = strings.TrimSpace(cur.Value + " " + t)
			continue
		}
		k, val, ok := strings.Cut(line, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t[]{}\"'") {
			return fmt.Errorf("line %q is not key: value", line)
		}
		val = strings.TrimSpace(val)
		// A value that only begins like a flow collection, its brackets closed, is text, as
		// Claude Code reads it: "argument-hint: [analyze|all] <path> [--force]" is a hint,
		// not a broken list. One left open ("[oops") is a mistake, and said so.
		if strings.HasPrefix(val, "{") || strings.HasPrefix(val, "[") {
			if !balanced(val) {
				return fmt.Errorf("line %q holds a flow collection that is not closed", line)
			}
		}
		cur = scalar(unquote(val))
		if strings.HasPrefix(val, "[") && strings.HasSuffix(val, "]") && !strings.ContainsAny(val[1:len(val)-1], "[]{}") {
			// A flow list of plain names: [Read, Grep].
			cur = &yaml.Node{Kind: yaml.SequenceNode}
			for _, it := range strings.Split(val[1:len(val)-1], ",") {
				if it = strings.TrimSpace(it); it != "" {
					cur.Content = append(cur.Content, scalar(unquote(it)))
				}
			}
		}
		m.Content = append(m.Content, scalar(k), cur)
	}
	return nil
}

// balanced reports whether every [ and { of s is closed, in order.
func balanced(s string) bool {
	var open []rune
	for _, r := range s {
		switch r {
		case '[', '{':
			open = append(open, r)
		case ']', '}':
			if len(open) == 0 || open[len(open)-1] != map[rune]rune{']': '[', '}': '{'}[r] {
				return false
			}
			open = open[:len(open)-1]
		}
	}
	return len(open) == 0
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// FirstLine is the first line of s (YAML errors can run over several).
func FirstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
