package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/ouroagent/ouro/internal/textcut"
)

// schema is a tool's compiled input schema plus what error messages need from it.
type schema struct {
	compiled *jsonschema.Schema
	props    map[string]json.RawMessage // top-level property schemas, for "what is allowed"
}

var english = message.NewPrinter(language.English)

// compileSchema compiles a tool's input schema; a tool with a broken schema is refused at
// registration, not discovered at the first call.
func compileSchema(name string, raw json.RawMessage) (*schema, error) {
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema is not JSON: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "ouro:tool/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema does not compile: %w", name, err)
	}
	s := &schema{compiled: compiled}
	var top struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &top) == nil {
		s.props = top.Properties
	}
	return s, nil
}

// check validates input and returns nil or a message that names each bad field, the value
// received and what is allowed.
func (s *schema) check(input json.RawMessage) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return fmt.Errorf("the input is not valid JSON: %v", err)
	}
	err = s.compiled.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var leaves []*jsonschema.ValidationError
	collectLeaves(ve, &leaves)
	lines := make([]string, 0, len(leaves))
	seen := map[string]bool{}
	add := func(line string) {
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	for _, l := range leaves {
		if len(l.InstanceLocation) == 0 {
			switch k := l.ErrorKind.(type) {
			case *kind.Required:
				for _, m := range k.Missing {
					line := "- " + m + ": missing, but it is required"
					if allowed := s.allowed(m); allowed != "" {
						line += " (" + allowed + ")"
					}
					add(line)
				}
				continue
			case *kind.AdditionalProperties:
				for _, p := range k.Properties {
					add("- " + p + ": not a field of this tool (" + s.allowed(p) + ")")
				}
				continue
			}
		}
		field := strings.Join(l.InstanceLocation, ".")
		msg := l.ErrorKind.LocalizedString(english)
		line := "- "
		if field != "" {
			line += field + ": "
			if v, ok := valueAt(inst, l.InstanceLocation); ok {
				line += "got " + textcut.Bytes(compact(v), 120, "…") + "; "
			}
		}
		line += msg
		if len(l.InstanceLocation) == 1 {
			if allowed := s.allowed(l.InstanceLocation[0]); allowed != "" {
				line += " (" + allowed + ")"
			}
		}
		add(line)
	}
	sort.Strings(lines)
	return errors.New(strings.Join(lines, "\n"))
}

func collectLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	if len(e.Causes) == 0 {
		*out = append(*out, e)
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

func valueAt(inst any, path []string) (any, bool) {
	cur := inst
	for _, p := range path {
		switch v := cur.(type) {
		case map[string]any:
			var ok bool
			if cur, ok = v[p]; !ok {
				return nil, false
			}
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// allowed describes a top-level property's schema: its type, enum and description.
func (s *schema) allowed(prop string) string {
	raw, ok := s.props[prop]
	if !ok {
		if len(s.props) == 0 {
			return ""
		}
		names := make([]string, 0, len(s.props))
		for n := range s.props {
			names = append(names, n)
		}
		sort.Strings(names)
		return "the allowed fields are " + strings.Join(names, ", ")
	}
	var p struct {
		Type        any    `json:"type"`
		Enum        []any  `json:"enum"`
		Description string `json:"description"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	var parts []string
	if p.Type != nil {
		parts = append(parts, fmt.Sprintf("expected %v", p.Type))
	}
	if len(p.Enum) > 0 {
		parts = append(parts, "one of "+compact(p.Enum))
	}
	if p.Description != "" {
		parts = append(parts, textcut.Bytes(p.Description, 160, "…"))
	}
	return strings.Join(parts, "; ")
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
