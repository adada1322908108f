package settings

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// honoured is every key ouro acts on in a settings file, as dotted paths ("sandbox.enabled"),
// derived from the struct a file is decoded into: a key is listed there exactly when ouro
// reads it. A field tagged `honour:"no"` is read only to say that ouro does not act on it.
// A map field (hooks, env) honours every key below it.
var honoured = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	walkKeys(reflect.TypeFor[file](), "", m)
	return m
})

func walkKeys(t reflect.Type, prefix string, m map[string]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || f.Tag.Get("honour") == "no" {
			continue
		}
		key := prefix + name
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			walkKeys(ft, key+".", m)
			continue
		}
		m[key] = true
		if ft.Kind() == reflect.Map {
			m[key+".*"] = true
		}
	}
}

// Unhonoured returns the keys of the settings document data that ouro reads past without
// acting on them (dotted, sorted): those its settings do not implement and that also
// names no other package reads from settings files (MCP approvals, say). A document
// that is not a JSON object has none.
func Unhonoured(data []byte, also ...string) []string {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(data), &doc); err != nil {
		return nil
	}
	known := honoured()
	extra := map[string]bool{"$schema": true} // the editor's schema, for no program
	for _, k := range also {
		extra[k] = true
	}
	var out []string
	var walk func(prefix string, doc map[string]json.RawMessage)
	walk = func(prefix string, doc map[string]json.RawMessage) {
		for k, v := range doc {
			key := prefix + k
			switch {
			case extra[key], known[key], known[prefix+"*"]:
				continue
			case hasPrefix(known, key+"."):
				var sub map[string]json.RawMessage
				if json.Unmarshal(v, &sub) == nil {
					walk(key+".", sub)
					continue
				}
			}
			out = append(out, key)
		}
	}
	walk("", doc)
	sort.Strings(out)
	return out
}

func hasPrefix(m map[string]bool, p string) bool {
	for k := range m {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
