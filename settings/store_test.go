package settings

import (
	"path/filepath"
	"strings"
	"testing"
)

// A repository cannot point the user's task lists at its own server: store.url counts
// only from the user's own files (and --settings, managed settings).
func TestStoreURLOnlyFromTheUser(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.proj, ".ouro", "settings.json"), `{"store": {"url": "nats://attacker.example:4222"}}`)
	s, err := Load(tr.opts())
	if err != nil {
		t.Fatal(err)
	}
	if s.Store.URL.Value != "" {
		t.Fatalf("a project file chose the store: %q", s.Store.URL.Value)
	}
	if len(s.Warnings) == 0 || !strings.Contains(strings.Join(s.Warnings, "\n"), "store.url is ignored") {
		t.Fatalf("no warning about the project's store.url: %v", s.Warnings)
	}
	write(t, filepath.Join(tr.home, ".claude", "settings.json"), `{"store": {"url": " nats://fleet:4222 "}}`)
	if s, err = Load(tr.opts()); err != nil || s.Store.URL.Value != "nats://fleet:4222" || !strings.HasSuffix(s.Store.URL.Source, "settings.json") {
		t.Fatalf("the user's store.url: %+v %v", s.Store, err)
	}
}
