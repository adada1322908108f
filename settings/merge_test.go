package settings

import (
	"reflect"
	"strings"
	"testing"
)

// jsonPaths lists the keys a settings file can hold, as dotted paths of the file type's
// JSON names.
func jsonPaths(t reflect.Type, prefix string, out map[string]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out[prefix+name] = true
		if f.Type.Kind() == reflect.Struct {
			jsonPaths(f.Type, prefix+name+".", out)
		}
	}
}

// Every row of the merge names a key a settings file holds, and no key has two rows: a
// typo would leave a key unmerged, and two rows would share whether it was set.
func TestEveryKeyHasOneRow(t *testing.T) {
	paths := map[string]bool{}
	jsonPaths(reflect.TypeOf(file{}), "", paths)
	rows := map[string]int{}
	for i, k := range keys {
		for _, n := range k.names() {
			if !paths[n] {
				t.Errorf("row %d merges %q, which no settings file holds", i, n)
			}
			if j, dup := rows[n]; dup {
				t.Errorf("rows %d and %d both merge %q", j, i, n)
			}
			rows[n] = i
		}
	}
	// Every leaf of a file is merged by some row (objects are merged through their keys).
	for p := range paths {
		leaf := true
		for q := range paths {
			if strings.HasPrefix(q, p+".") {
				leaf = false
			}
		}
		if _, ok := rows[p]; leaf && !ok {
			t.Errorf("no row merges %q", p)
		}
	}
}

// A scalar row takes the most specific value a file may set: a refused value (with its
// warning, or without a word) leaves the key to the less specific files, and a value
// taken keeps its file.
func TestScalarRowPrecedenceAndTrust(t *testing.T) {
	type got struct{ v, from string }
	var out got
	row := scalar[string]{name: "model", get: func(f *file) *string { return f.Model },
		may: func(_ *merger, l layer, v string) (bool, string) {
			switch {
			case v == "quiet":
				return false, ""
			case l.project() && v == "loose":
				return false, "model loose is ignored"
			}
			return true, ""
		},
		put: func(_ *Settings, v Sourced[string]) { out = got{v.Value, v.Source} }}
	str := func(s string) *file { return &file{Model: &s} }
	m := &merger{set: map[string]bool{}}
	s := &Settings{}
	row.join(m, s, &file{}, layer{path: "empty"})
	row.join(m, s, str("quiet"), layer{path: "q", user: true})
	row.join(m, s, str("loose"), layer{path: "proj"})
	if out != (got{}) || len(s.Warnings) != 1 || s.Warnings[0] != "proj: model loose is ignored" {
		t.Fatalf("refused values: %+v %q", out, s.Warnings)
	}
	row.join(m, s, str("loose"), layer{path: "user", user: true})
	row.join(m, s, str("later"), layer{path: "user2", user: true})
	if out != (got{"loose", "user"}) {
		t.Errorf("taken value: %+v", out)
	}
}
