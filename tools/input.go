package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// decodeInput decodes a tool's JSON input into v, rejecting fields the schema does not
// declare, and words decoding errors in JSON terms the model can act on rather than in
// Go type names.
func decodeInput(toolName string, raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			return fmt.Errorf("invalid %s input: it must be a JSON object, got %s", toolName, typeErr.Value)
		}
		return fmt.Errorf("invalid %s input: %s must be %s, got %s", toolName, typeErr.Field, jsonKind(typeErr.Type), typeErr.Value)
	}
	return fmt.Errorf("invalid %s input: %w", toolName, err)
}

// jsonKind names a Go type the way a JSON schema would.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}
