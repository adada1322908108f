package hook_test

import (
	"os"
	"testing"

	"github.com/ouroagent/ouro/sandbox"
)

// TestMain lets the test binary act as the sandbox launcher, as the ouro binary does:
// command hooks run under its supervision (see hookCommand).
func TestMain(m *testing.M) {
	sandbox.MaybeRunLauncher()
	os.Exit(m.Run())
}
