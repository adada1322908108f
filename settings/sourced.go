package settings

import "encoding/json"

// Sourced is a value a settings file (or flag) gave, with where it came from: one field
// instead of a value and its twin XSource, filled by the merge table (merge.go).
type Sourced[T any] struct {
	Value T
	// Source is the settings file that set Value, "--settings" for inline JSON, or the
	// flag that did ("--permission-mode"); "" when nothing set it.
	Source string
}

// MarshalJSON writes the value alone, as the settings files hold it.
func (v Sourced[T]) MarshalJSON() ([]byte, error) { return json.Marshal(v.Value) }

// UnmarshalJSON reads the value alone; the source stays as it was.
func (v *Sourced[T]) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &v.Value) }

// From is v's Source, or "" when v is nil (a key such as sandbox.enabled that no file
// set).
func (v *Sourced[T]) From() string {
	if v == nil {
		return ""
	}
	return v.Source
}
