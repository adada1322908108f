package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/internal/textcut"
)

// Elicitation is a server asking the user for input (MCP elicitation/create, form mode):
// a message and the fields of a flat form. Every text in it comes from the server and is
// made printable and bounded before anyone sees it.
type Elicitation struct {
	Server  string
	Message string
	Fields  []Field
}

// Field is one entry of an elicitation form.
type Field struct {
	Name, Title, Description string
	// Type is string, number, integer, boolean or array (a multi-select of Choices).
	Type     string
	Required bool
	Default  any // nil: none
	// Choices are the allowed values of an enum (or of a multi-select's items), with
	// their titles when the server gave them.
	Choices      []string
	ChoiceTitles []string
	Format       string // email, uri, date, date-time
	MinLength    *int
	MaxLength    *int
	Minimum      *float64
	Maximum      *float64
	MinItems     *int
	MaxItems     *int
}

// Answer is the user's reply: Action is accept (with Content), decline or cancel.
// Reason says why a decline or cancel happened, for the record (stream-json, stderr);
// it is not sent to the server, as MCP has no place for it.
type Answer struct {
	Action  string
	Content map[string]any
	Reason  string
}

// Elicitation actions.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// Bounds on what a server may put in front of the user.
const (
	maxElicitMessage = 2000
	maxElicitText    = 300
	maxElicitFields  = 30
	maxElicitChoices = 50
)

// elicitHandler answers a server's elicitation requests through ask (the REPL's form,
// or a headless decline).
func (m *Manager) elicitHandler(s *server) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		e := &Elicitation{Server: s.cfg.Name}
		var a Answer
		switch {
		case req.Params.Mode == "url":
			e.Message = printable(req.Params.Message, maxElicitMessage)
			a = Answer{Action: ElicitDecline, Reason: "ouro answers form elicitations only, not URL ones"}
		default:
			var err error
			e, err = parseElicitation(s.cfg.Name, req.Params.Message, req.Params.RequestedSchema)
			if err != nil {
				a = Answer{Action: ElicitDecline, Reason: err.Error()}
			} else {
				a = m.opts.Elicit(ctx, e)
			}
		}
		switch a.Action {
		case ElicitAccept:
			if a.Content == nil {
				a.Content = map[string]any{}
			}
		case ElicitDecline, ElicitCancel:
			a.Content = nil
		default:
			a = Answer{Action: ElicitCancel, Reason: fmt.Sprintf("unknown answer %q", a.Action)}
		}
		if m.opts.OnElicit != nil {
			m.opts.OnElicit(e, a)
		}
		return &mcp.ElicitResult{Action: a.Action, Content: a.Content}, nil
	}
}

// schemaProp is what ouro reads of an elicitation form's property.
type schemaProp struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Default     any      `json:"default"`
	Enum        []any    `json:"enum"`
	EnumNames   []string `json:"enumNames"`
	OneOf       []titled `json:"oneOf"`
	Format      string   `json:"format"`
	MinLength   *int     `json:"minLength"`
	MaxLength   *int     `json:"maxLength"`
	Minimum     *float64 `json:"minimum"`
	Maximum     *float64 `json:"maximum"`
	MinItems    *int     `json:"minItems"`
	MaxItems    *int     `json:"maxItems"`
	Items       *struct {
		Enum  []any    `json:"enum"`
		AnyOf []titled `json:"anyOf"`
	} `json:"items"`
}

type titled struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// parseElicitation reads a form elicitation. Required fields come first, in the order
// the server listed them, then the others by name (the SDK hands the schema over as a
// map, which keeps no order).
func parseElicitation(server, message string, schema any) (*Elicitation, error) {
	e := &Elicitation{Server: server, Message: printable(message, maxElicitMessage)}
	if schema == nil {
		return e, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("the requested schema cannot be read: %v", err)
	}
	var top struct {
		Properties map[string]schemaProp `json:"properties"`
		Required   []string              `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("the requested schema cannot be read: %v", err)
	}
	if len(top.Properties) > maxElicitFields {
		return nil, fmt.Errorf("the form has %d fields, more than the %d ouro shows", len(top.Properties), maxElicitFields)
	}
	required := map[string]bool{}
	var names []string
	for _, n := range top.Required {
		if _, ok := top.Properties[n]; ok && !required[n] {
			required[n] = true
			names = append(names, n)
		}
	}
	var rest []string
	for n := range top.Properties {
		if !required[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	for _, n := range append(names, rest...) {
		p := top.Properties[n]
		f := Field{Name: printable(n, maxElicitText), Title: printable(p.Title, maxElicitText),
			Description: printable(p.Description, maxElicitText), Type: p.Type, Required: required[n],
			Default: p.Default, Format: p.Format, MinLength: p.MinLength, MaxLength: p.MaxLength,
			Minimum: p.Minimum, Maximum: p.Maximum, MinItems: p.MinItems, MaxItems: p.MaxItems}
		if f.Name != n {
			return nil, fmt.Errorf("the field name %q holds characters ouro does not show", textcut.Bytes(n, 40, "…"))
		}
		enum, titles := p.Enum, p.EnumNames
		if len(p.OneOf) > 0 {
			enum, titles = titledChoices(p.OneOf)
		}
		if f.Type == "" && len(enum) > 0 {
			f.Type = "string"
		}
		if f.Type == "array" && p.Items != nil {
			enum, titles = p.Items.Enum, nil
			if len(p.Items.AnyOf) > 0 {
				enum, titles = titledChoices(p.Items.AnyOf)
			}
		}
		if len(enum) > maxElicitChoices {
			return nil, fmt.Errorf("field %q offers %d choices, more than the %d ouro shows", n, len(enum), maxElicitChoices)
		}
		for i, v := range enum {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("field %q has a choice that is not a string (%v)", n, v)
			}
			f.Choices = append(f.Choices, printable(s, maxElicitText))
			t := ""
			if i < len(titles) {
				t = printable(titles[i], maxElicitText)
			}
			f.ChoiceTitles = append(f.ChoiceTitles, t)
		}
		switch f.Type {
		case "string", "number", "integer", "boolean":
		case "array":
			if len(f.Choices) == 0 {
				return nil, fmt.Errorf("field %q is a list without choices, which ouro cannot ask for", n)
			}
		default:
			return nil, fmt.Errorf("field %q has the type %q, which a form cannot hold", n, f.Type)
		}
		e.Fields = append(e.Fields, f)
	}
	return e, nil
}

func titledChoices(ts []titled) (enum []any, titles []string) {
	for _, t := range ts {
		enum = append(enum, t.Const)
		titles = append(titles, t.Title)
	}
	return enum, titles
}

// Fill asks for every field of e with ask and checks each answer against the field's
// schema; ask is called again, with the problem, until the answer fits. An empty
// answer takes the field's default, or leaves an optional field out. ask's error (the
// user cancelled, the input ended) ends the form.
func (e *Elicitation) Fill(ask func(f Field, problem string) (string, error)) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range e.Fields {
		problem := ""
		for tries := 0; ; tries++ {
			in, err := ask(f, problem)
			if err != nil {
				return nil, err
			}
			v, set, err := f.Parse(in)
			if err == nil {
				if set {
					out[f.Name] = v
				}
				break
			}
			if tries >= 20 {
				return nil, fmt.Errorf("field %q: %v", f.Name, err)
			}
			problem = err.Error()
		}
	}
	return out, nil
}

// Parse reads the user's answer for f: the value, whether the field is set, or what is
// wrong with the answer.
func (f Field) Parse(in string) (any, bool, error) {
	in = strings.TrimSpace(in)
	if in == "" {
		switch {
		case f.Default != nil:
			return f.Default, true, nil
		case f.Required:
			return nil, false, fmt.Errorf("this field is required")
		}
		return nil, false, nil
	}
	switch f.Type {
	case "boolean":
		switch strings.ToLower(in) {
		case "y", "yes", "true", "1":
			return true, true, nil
		case "n", "no", "false", "0":
			return false, true, nil
		}
		return nil, false, fmt.Errorf("answer yes or no")
	case "integer", "number":
		x, err := strconv.ParseFloat(in, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false, fmt.Errorf("%q is not a number", in)
		}
		if f.Type == "integer" && (x != math.Trunc(x) || math.Abs(x) > 1<<53) {
			return nil, false, fmt.Errorf("%q is not a whole number ouro can pass on exactly", in)
		}
		if f.Minimum != nil && x < *f.Minimum {
			return nil, false, fmt.Errorf("%s is less than the minimum %g", in, *f.Minimum)
		}
		if f.Maximum != nil && x > *f.Maximum {
			return nil, false, fmt.Errorf("%s is more than the maximum %g", in, *f.Maximum)
		}
		if f.Type == "integer" {
			return int64(x), true, nil
		}
		return x, true, nil
	case "array":
		var picked []any
		seen := map[string]bool{}
		for _, part := range strings.Split(in, ",") {
			c, err := f.choice(strings.TrimSpace(part))
			if err != nil {
				return nil, false, err
			}
			if !seen[c] {
				seen[c] = true
				picked = append(picked, c)
			}
		}
		if f.MinItems != nil && len(picked) < *f.MinItems {
			return nil, false, fmt.Errorf("pick at least %d", *f.MinItems)
		}
		if f.MaxItems != nil && len(picked) > *f.MaxItems {
			return nil, false, fmt.Errorf("pick at most %d", *f.MaxItems)
		}
		return picked, true, nil
	}
	if len(f.Choices) > 0 {
		c, err := f.choice(in)
		return c, err == nil, err
	}
	n := len([]rune(in))
	if f.MinLength != nil && n < *f.MinLength {
		return nil, false, fmt.Errorf("at least %d characters", *f.MinLength)
	}
	if f.MaxLength != nil && n > *f.MaxLength {
		return nil, false, fmt.Errorf("at most %d characters", *f.MaxLength)
	}
	if err := checkFormat(f.Format, in); err != nil {
		return nil, false, err
	}
	return in, true, nil
}

// choice is the value a choice answer names: the value itself, its title, or its number
// in the list (from 1).
func (f Field) choice(in string) (string, error) {
	for i, c := range f.Choices {
		if in == c || (f.ChoiceTitles[i] != "" && strings.EqualFold(in, f.ChoiceTitles[i])) {
			return c, nil
		}
	}
	if n, err := strconv.Atoi(in); err == nil && n >= 1 && n <= len(f.Choices) {
		return f.Choices[n-1], nil
	}
	return "", fmt.Errorf("%q is not one of the choices (%s)", in, strings.Join(f.Choices, ", "))
}

func checkFormat(format, in string) error {
	switch format {
	case "email":
		if a, err := mail.ParseAddress(in); err != nil || a.Address != in {
			return fmt.Errorf("%q is not an email address", in)
		}
	case "uri":
		if u, err := url.Parse(in); err != nil || u.Scheme == "" {
			return fmt.Errorf("%q is not a URI (it needs a scheme, as in https://…)", in)
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, in); err != nil {
			return fmt.Errorf("%q is not a date (YYYY-MM-DD)", in)
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, in); err != nil {
			return fmt.Errorf("%q is not a date and time (RFC 3339, as in 2026-01-31T09:00:00Z)", in)
		}
	}
	return nil
}

// printable drops terminal escape sequences and control characters (a server must not
// move the cursor or recolour the terminal) except newlines and tabs, and cuts s to n
// bytes.
func printable(s string, n int) string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[', r == 0x9b:
			// CSI: parameters and intermediates up to a final byte.
			if r == 0x1b {
				i++
			}
			for i+1 < len(rs) && (rs[i+1] < 0x40 || rs[i+1] > 0x7e) {
				i++
			}
			i++
		case r == 0x1b && i+1 < len(rs) && strings.ContainsRune("]PX^_", rs[i+1]):
			// OSC and other strings: up to BEL or ESC \.
			for i++; i+1 < len(rs) && rs[i+1] != 0x07 && rs[i+1] != 0x1b; i++ {
			}
			i++
			if i < len(rs) && rs[i] == 0x1b {
				i++
			}
		case r == 0x1b:
			i++ // ESC and the character after it
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r):
		default:
			b.WriteRune(r)
		}
	}
	return textcut.Bytes(b.String(), n, "…")
}
