package harness

import (
	"os"
	"testing"

	"github.com/ouroagent/ouro/sandbox"
)

// TestMain lets this test binary serve as the sandbox launcher, as ouro's main does.
func TestMain(m *testing.M) {
	sandbox.MaybeRunLauncher()
	os.Exit(m.Run())
}
