package settings

import (
	"encoding/json"
	"strings"
	"testing"
)

// Settings keeps its JSON shape: a Sourced field is written and read as its value alone.
func TestSourcedJSONIsTheValue(t *testing.T) {
	s := Settings{Model: Sourced[string]{Value: "m", Source: "/f.json"}}
	s.Permissions.DefaultMode = Sourced[string]{Value: "plan", Source: "--permission-mode"}
	s.Sandbox.Enabled = &Sourced[bool]{Value: false, Source: "/f.json"}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"model":"m"`, `"defaultMode":"plan"`, `"enabled":false`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %s", data, want)
		}
	}
	if strings.Contains(string(data), "Source") || strings.Contains(string(data), "/f.json") {
		t.Errorf("the source leaked into the JSON: %s", data)
	}
	var back Settings
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Model.Value != "m" || back.Permissions.DefaultMode.Value != "plan" || back.Sandbox.Enabled == nil || back.Sandbox.Enabled.Value {
		t.Errorf("read back %+v", back)
	}
}

// From is "" for a key no file set, and the file for one that was.
func TestSourcedFrom(t *testing.T) {
	var unset *Sourced[bool]
	if got := unset.From(); got != "" {
		t.Errorf("nil From = %q", got)
	}
	if got := (&Sourced[bool]{Value: true, Source: "/x"}).From(); got != "/x" {
		t.Errorf("From = %q", got)
	}
}
