package harness

import (
	"os"
	"testing"

	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/workflow/wfserve"
)

// TestMain lets this test binary serve as the sandbox launcher and the workflow engine,
// as ouro's main does.
func TestMain(m *testing.M) {
	sandbox.MaybeRunLauncher()
	wfserve.MaybeServe()
	os.Exit(m.Run())
}
