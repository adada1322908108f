package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

const testKey = "sk-ant-api03-Zx9kQ2mP7vL4rT8wN3bY6cH1"

func TestExtractDropsSecretsAndTemporaryDetails(t *testing.T) {
	recent := []llm.Message{
		llm.UserText("Our deploy key is " + testKey + " and we always deploy with `make ship`. Today I'm debugging in /tmp/x."),
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("Noted.")}},
	}
	answer := `{"memories": [
	  {"name": "deploy-command", "description": "Deploys go through make ship", "type": "project", "body": "Always deploy with make ship."},
	  {"name": "deploy-key", "description": "The deploy key", "type": "reference", "body": "Key: ` + testKey + `"},
	  {"name": "debug-dir", "description": "Debugging in /tmp/x", "type": "project"},
	  {"name": "current-bug", "description": "User is chasing a flaky test", "type": "project", "temporary": true},
	  {"name": "today-focus", "description": "Focus today is the parser", "type": "project"},
	  {"name": "deploy-command-2", "description": "Deploys go through make ship!", "type": "project"}
	]}`
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: answer}}})
	rs, err := Extract(context.Background(), prov, "small", recent, "session s2 turn 4")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Name != "deploy-command" || rs[0].Source != "session s2 turn 4" {
		t.Fatalf("records = %+v", rs)
	}
	if sent := prov.Requests()[0].Messages[0].Text(); strings.Contains(sent, testKey) || !strings.Contains(sent, "[REDACTED]") {
		t.Errorf("secret sent to the model: %s", sent)
	}
	dir := filepath.Join(t.TempDir(), "memory")
	s := Open(dir, "project")
	// Even a record that slipped past Extract is refused by the store.
	saved, skipped := s.SaveAll(append(rs, Record{Name: "k", Description: "key " + testKey}))
	if len(saved) != 1 || len(skipped) != 1 {
		t.Fatalf("saved %v skipped %v", saved, skipped)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if strings.Contains(string(data), "sk-ant") {
			t.Fatalf("secret reached %s", e.Name())
		}
		if strings.Contains(string(data), "/tmp/x") || strings.Contains(string(data), "flaky") {
			t.Fatalf("temporary detail stored in %s", e.Name())
		}
	}
	// Extracting the same fact again is a duplicate of the store.
	_, skipped = s.SaveAll(rs)
	if len(skipped) != 1 {
		t.Errorf("duplicate saved: %v", skipped)
	}
}

func TestExtractBadAnswer(t *testing.T) {
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "I could not decide."}}})
	if _, err := Extract(context.Background(), prov, "small", []llm.Message{llm.UserText("hi")}, "s"); err == nil {
		t.Error("no error for an answer without JSON")
	}
}

func TestRememberSavesAndConsolidatesPastThreshold(t *testing.T) {
	s := seedStore(t)
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{Text: `{"memories": [{"name": "lint", "description": "Lint with golangci-lint run ./...", "type": "feedback"}]}`},
		{Fault: &scripted.Fault{Status: 400, Message: "no"}},
	}})
	saved, skipped, cerr, err := Remember(context.Background(), prov, "small", s, []llm.Message{llm.UserText("always lint with golangci-lint")}, "session s3 turn 1", 3)
	if err != nil || len(saved) != 1 || len(skipped) != 0 || cerr == nil {
		t.Fatalf("saved %v skipped %v cerr %v err %v", saved, skipped, cerr, err)
	}
	if r, err := s.Get("lint"); err != nil || r.Source != "session s3 turn 1" {
		t.Errorf("lint = %+v, %v", r, err)
	}
	if len(prov.Requests()) != 2 {
		t.Errorf("consolidation not attempted past the threshold")
	}
}
