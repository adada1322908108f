package helperbin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocate(t *testing.T) {
	t.Setenv("OURO_TEST_HELPER_BIN", "")
	t.Setenv("PATH", t.TempDir())
	_, err := Locate("ouro-nothing", "OURO_TEST_HELPER_BIN", "tests")
	if err == nil || !strings.Contains(err.Error(), "tests run in the ouro-nothing helper") || !strings.Contains(err.Error(), "OURO_TEST_HELPER_BIN") {
		t.Fatalf("a missing helper: %v", err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ouro-nothing")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", dir)
	if p, err := Locate("ouro-nothing", "OURO_TEST_HELPER_BIN", "tests"); err != nil || p != bin {
		t.Fatalf("on PATH: %q %v", p, err)
	}
	t.Setenv("OURO_TEST_HELPER_BIN", "/opt/x/ouro-nothing")
	if p, _ := Locate("ouro-nothing", "OURO_TEST_HELPER_BIN", "tests"); p != "/opt/x/ouro-nothing" {
		t.Fatalf("the variable should win: %q", p)
	}
}
