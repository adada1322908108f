package team

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A status file is ouro's own, but what it names is checked: a transcript outside ouro's
// home is not read, and a missing status file is a first run.
func TestDeliveredBeforeReadsOnlyOurosTranscripts(t *testing.T) {
	home := t.TempDir()
	status := filepath.Join(home, "teams", "crew.worker-w1.json")
	if ids, err := deliveredBefore(status, "w1", home); err != nil || ids != nil {
		t.Fatalf("first run: %v %v", ids, err)
	}
	outside := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.MkdirAll(filepath.Dir(status), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{outside, filepath.Join(home, "..", "x.jsonl"), "relative.jsonl"} {
		if err := os.WriteFile(status, []byte(`{"team":"crew","members":[{"name":"w1","transcript":"`+p+`"}]}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := deliveredBefore(status, "w1", home); err == nil || !strings.Contains(err.Error(), "is not read") {
			t.Fatalf("transcript %s: %v", p, err)
		}
	}
	if err := os.WriteFile(status, []byte(`{"members":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := deliveredBefore(status, "w1", home); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged status: %v", err)
	}
}
