package tool

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ouroagent/ouro/internal/textcut"
)

// Tool input schemas are checked with github.com/google/jsonschema-go, the validator the
// official MCP SDK uses (MCP tools' schemas go through the same code). It reports the
// first problem it meets; for a model the useful answer names every bad field, so on
// failure each top-level field is checked on its own (see check).

// schema is a tool's resolved input schema plus what error messages need from it.
type schema struct {
	root     *jsonschema.Schema
	resolved *jsonschema.Resolved
	props    map[string]json.RawMessage // top-level property schemas, for "what is allowed"
	closed   bool                       // additionalProperties: false
}

// compiled holds every schema compiled in this process, by the SHA-256 of its bytes:
// each subagent, teammate and workflow agent builds a registry of its own from the same
// tools, and a schema is compiled once, not once per registry (it was a third of the
// CPU of a 256-agent workflow). A compiled schema is never changed after compiling (check
// works on copies), so the registries share it. Broken schemas are not kept: their error
// names the tool.
var compiled sync.Map // [sha256.Size]byte → *schema

// maxCompiled bounds compiled: past it (a process that meets ever new schemas, e.g. MCP
// servers that make them up) new schemas are compiled without being kept.
const maxCompiled = 4096

var compiledCount atomic.Int64

// compileSchema resolves a tool's input schema; a tool with a broken schema is refused at
// registration, not discovered at the first call. The same bytes compile once per
// process.
func compileSchema(name string, raw json.RawMessage) (*schema, error) {
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	key := sha256.Sum256(raw)
	if s, ok := compiled.Load(key); ok {
		return s.(*schema), nil
	}
	s, err := compileFresh(name, raw)
	if err != nil {
		return nil, err
	}
	if compiledCount.Load() < maxCompiled {
		if prev, loaded := compiled.LoadOrStore(key, s); loaded {
			return prev.(*schema), nil
		}
		compiledCount.Add(1)
	}
	return s, nil
}

// compileFresh compiles raw with no cache.
func compileFresh(name string, raw json.RawMessage) (*schema, error) {
	var root jsonschema.Schema
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("tool %s: input schema is not a JSON schema: %w", name, err)
	}
	// The validator knows draft-07 and 2020-12 only and refuses every instance of a
	// schema naming another draft; tool schemas use nothing the drafts disagree on.
	root.Schema = ""
	if err := knownTypes(&root); err != nil {
		return nil, fmt.Errorf("tool %s: input schema does not compile: %w", name, err)
	}
	resolved, err := root.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema does not compile: %w", name, err)
	}
	s := &schema{root: &root, resolved: resolved}
	var top struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	}
	if json.Unmarshal(raw, &top) == nil {
		s.props = top.Properties
		s.closed = strings.TrimSpace(string(top.AdditionalProperties)) == "false"
	}
	return s, nil
}

var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// knownTypes refuses a type name JSON Schema does not have ("objekt"), which would
// otherwise make every call fail; the validator does not check schemas against the
// meta-schema.
func knownTypes(s *jsonschema.Schema) error {
	var err error
	walk(s, func(sub *jsonschema.Schema) {
		for _, t := range append([]string{sub.Type}, sub.Types...) {
			if t != "" && !slices.Contains(jsonTypes, t) && err == nil {
				err = fmt.Errorf("unknown type %q (the types are %s)", t, strings.Join(jsonTypes, ", "))
			}
		}
	})
	return err
}

// walk calls f on s and every schema below it.
func walk(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	for _, m := range []map[string]*jsonschema.Schema{s.Properties, s.Defs, s.Definitions, s.PatternProperties, s.DependentSchemas} {
		for _, sub := range m {
			walk(sub, f)
		}
	}
	for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems, s.ItemsArray} {
		for _, sub := range l {
			walk(sub, f)
		}
	}
	for _, sub := range []*jsonschema.Schema{s.Items, s.AdditionalProperties, s.AdditionalItems, s.Not, s.If, s.Then, s.Else,
		s.Contains, s.PropertyNames, s.UnevaluatedItems, s.UnevaluatedProperties} {
		walk(sub, f)
	}
}

// check validates input and returns nil or a message that names each bad field, the value
// received and what is allowed.
func (s *schema) check(input json.RawMessage) error {
	var inst any
	if err := json.Unmarshal(input, &inst); err != nil {
		return fmt.Errorf("the input is not valid JSON: %v", err)
	}
	whole := s.resolved.Validate(inst)
	if whole == nil {
		return nil
	}
	obj, _ := inst.(map[string]any)
	var lines []string
	for _, m := range s.root.Required {
		if _, ok := obj[m]; !ok {
			line := "- " + m + ": missing, but it is required"
			if allowed := s.allowed(m); allowed != "" {
				line += " (" + allowed + ")"
			}
			lines = append(lines, line)
		}
	}
	for name, v := range obj {
		if _, known := s.root.Properties[name]; !known {
			if s.closed {
				lines = append(lines, "- "+name+": not a field of this tool ("+s.allowed(name)+")")
			}
			continue
		}
		if err := s.checkField(name, v); err != nil {
			where, got := s.locate(err, name, v)
			line := "- " + where + ": got " + textcut.Bytes(compact(got), 120, "…") + "; " + innermost(err)
			if allowed := s.allowed(name); allowed != "" && where == name {
				line += " (" + allowed + ")"
			}
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return errors.New("- " + innermost(whole))
	}
	sort.Strings(lines)
	return errors.New(strings.Join(lines, "\n"))
}

// checkField validates one top-level field on its own: the root schema with only that
// property (its $defs kept, so references still resolve), nothing required or closed.
func (s *schema) checkField(name string, v any) error {
	w := *s.root
	w.Properties = map[string]*jsonschema.Schema{name: s.root.Properties[name]}
	w.Required, w.AdditionalProperties, w.DependentRequired = nil, nil, nil
	w.AllOf, w.AnyOf, w.OneOf, w.Not, w.If, w.Then, w.Else = nil, nil, nil, nil, nil, nil, nil
	w.MinProperties, w.MaxProperties, w.PropertyNames, w.UnevaluatedProperties = nil, nil, nil, nil
	r, err := w.Resolve(nil)
	if err != nil {
		return nil // the field cannot be judged alone; the whole input's error stands
	}
	return r.Validate(map[string]any{name: v})
}

// locate follows the schema path of a field's error ("validating
// /properties/todos/items/properties/status: …") into the value, so the message names
// the element at fault (todos.0.status) and shows it rather than the whole field. It
// stops where the path leaves properties and items.
func (s *schema) locate(err error, name string, v any) (where string, got any) {
	where, got = name, v
	path := schemaPath(err)
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(segs) < 2 || segs[0] != "properties" || segs[1] != name {
		return where, got
	}
	sub := s.root.Properties[name]
	for i := 2; i < len(segs) && sub != nil; i++ {
		switch segs[i] {
		case "properties":
			if i+1 >= len(segs) {
				return where, got
			}
			obj, ok := got.(map[string]any)
			next, has := obj[segs[i+1]]
			if !ok || !has {
				return where, got
			}
			where, got, sub = where+"."+segs[i+1], next, sub.Properties[segs[i+1]]
			i++
		case "items":
			arr, ok := got.([]any)
			if !ok || sub.Items == nil {
				return where, got
			}
			idx := s.firstInvalid(sub.Items, arr)
			if idx < 0 {
				return where, got
			}
			where, got, sub = fmt.Sprintf("%s.%d", where, idx), arr[idx], sub.Items
		default:
			return where, got
		}
	}
	return where, got
}

// firstInvalid is the index of the first element of arr that items refuses, or -1.
func (s *schema) firstInvalid(items *jsonschema.Schema, arr []any) int {
	w := *items
	if w.Defs == nil {
		w.Defs = s.root.Defs
	}
	if w.Definitions == nil {
		w.Definitions = s.root.Definitions
	}
	r, err := w.Resolve(nil)
	if err != nil {
		return -1
	}
	for i, el := range arr {
		if r.Validate(el) != nil {
			return i
		}
	}
	return -1
}

// schemaPath is the deepest schema location an error names ("/properties/a/items").
func schemaPath(err error) string {
	msg, last := err.Error(), ""
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			return last
		}
		loc, after, found := strings.Cut(rest, ": ")
		if !found {
			return last
		}
		last, msg = loc, after
	}
}

// innermost strips the validator's "validating <where>: " prefixes, leaving what was
// wrong ("type: 42 has type "integer", want "string"").
func innermost(err error) string {
	msg := err.Error()
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			return msg
		}
		_, after, found := strings.Cut(rest, ": ")
		if !found {
			return msg
		}
		msg = after
	}
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
