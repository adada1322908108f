package mcpclient

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\nline":             "plain\ttext\nline",
		"red\x1b[31;1mtext\x1b[0m":      "redtext",
		"title\x1b]0;owned\x07after":    "titleafter",
		"osc\x1b]8;;http://x\x1b\\link": "osclink",
		"bell\x07 and \u202eRLO":        "bell and RLO",
		"alt\x1bxkey":                   "altkey",
		"trailing esc\x1b":              "trailing esc",
		"csi8\u009b2Jcleared":           "csi8cleared",
	} {
		if got := printable(in, 100); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
	if got := printable(strings.Repeat("é", 100), 11); len(got) > 11+len("…") {
		t.Errorf("not cut: %q", got)
	}
}

func TestParseElicitation(t *testing.T) {
	e, err := parseElicitation("s", "hi", map[string]any{"type": "object",
		"properties": map[string]any{
			"b":    map[string]any{"type": "boolean"},
			"a":    map[string]any{"type": "string", "format": "email"},
			"z":    map[string]any{"type": "number", "maximum": 1.5},
			"pick": map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"const": "x", "title": "Ex"}, map[string]any{"const": "y", "title": "Why"}}}, "maxItems": 1},
			"n":    map[string]any{"type": "integer"},
			"one":  map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "p", "title": "Pea"}}},
		},
		"required": []any{"z", "nothere"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "z,a,b,n,one,pick" {
		t.Fatalf("order %v", names)
	}
	byName := map[string]Field{}
	for _, f := range e.Fields {
		byName[f.Name] = f
	}
	cases := []struct {
		field, in string
		want      any
		bad       string
	}{
		{"z", "", nil, "required"},
		{"z", "2", nil, "more than the maximum"},
		{"z", "1.25", 1.25, ""},
		{"z", "NaN", nil, "not a number"},
		{"n", "1.5", nil, "not a whole number"},
		{"n", "1e300", nil, "not a whole number"},
		{"n", "42", int64(42), ""},
		{"a", "not an address", nil, "not an email"},
		{"a", "a@b.example", "a@b.example", ""},
		{"b", "maybe", nil, "yes or no"},
		{"b", "Yes", true, ""},
		{"one", "pea", "p", ""},
		{"one", "1", "p", ""},
		{"one", "q", nil, "not one of the choices"},
		{"pick", "x, y", nil, "at most 1"},
		{"pick", "Why", []any{"y"}, ""},
	}
	for _, c := range cases {
		v, _, err := byName[c.field].Parse(c.in)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("%s %q: err %v, want %q", c.field, c.in, err, c.bad)
			}
			continue
		}
		if err != nil || !equalJSON(v, c.want) {
			t.Errorf("%s %q = %v, %v; want %v", c.field, c.in, v, err, c.want)
		}
	}
	// Hostile forms are refused before anyone sees them.
	for name, schema := range map[string]any{
		"nested":  map[string]any{"properties": map[string]any{"o": map[string]any{"type": "object"}}},
		"escape":  map[string]any{"properties": map[string]any{"x\x1b[2J": map[string]any{"type": "string"}}},
		"listnoc": map[string]any{"properties": map[string]any{"l": map[string]any{"type": "array"}}},
		"numenum": map[string]any{"properties": map[string]any{"n": map[string]any{"type": "string", "enum": []any{1, 2}}}},
	} {
		if _, err := parseElicitation("s", "m", schema); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	many := map[string]any{}
	for i := 0; i < 40; i++ {
		many[strings.Repeat("f", i+1)] = map[string]any{"type": "string"}
	}
	if _, err := parseElicitation("s", "m", map[string]any{"properties": many}); err == nil || !strings.Contains(err.Error(), "fields") {
		t.Errorf("40 fields: %v", err)
	}
}

func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case []any:
		bb, ok := b.([]any)
		if !ok || len(a) != len(bb) {
			return false
		}
		for i := range a {
			if a[i] != bb[i] {
				return false
			}
		}
		return true
	}
	return a == b
}

// A form the user cannot be shown is declined without asking, and the answer is
// recorded; a URL elicitation is declined.
func TestElicitHandlerDeclinesWhatItCannotShow(t *testing.T) {
	asked := 0
	var seen []Answer
	m := New(nil, Options{Elicit: func(context.Context, *Elicitation) Answer { asked++; return Answer{Action: ElicitAccept} },
		OnElicit: func(_ *Elicitation, a Answer) { seen = append(seen, a) }})
	h := m.elicitHandler(&server{})
	res, err := h(context.Background(), &mcp.ElicitRequest{Params: &mcp.ElicitParams{Message: "m",
		RequestedSchema: map[string]any{"properties": map[string]any{"o": map[string]any{"type": "object"}}}}})
	if err != nil || res.Action != ElicitDecline || asked != 0 {
		t.Fatalf("nested form: %v %v asked=%d", res, err, asked)
	}
	res, _ = h(context.Background(), &mcp.ElicitRequest{Params: &mcp.ElicitParams{Mode: "url", URL: "https://x", Message: "open"}})
	if res.Action != ElicitDecline || asked != 0 {
		t.Fatalf("url: %v", res)
	}
	res, _ = h(context.Background(), &mcp.ElicitRequest{Params: &mcp.ElicitParams{Message: "ok"}})
	if res.Action != ElicitAccept || res.Content == nil || asked != 1 {
		t.Fatalf("accept: %v", res)
	}
	if len(seen) != 3 || seen[0].Reason == "" || seen[1].Reason == "" {
		t.Fatalf("recorded %v", seen)
	}
}
