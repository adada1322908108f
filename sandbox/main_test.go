package sandbox

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	MaybeRunLauncher()
	if spec := os.Getenv(holderEnv); spec != "" {
		runHolder(spec)
	}
	code := testMainWithCache(m)
	os.Exit(code)
}

// holderEnv makes the test binary start one command as Bash would and wait to be killed:
// "mode,pidns,dir,script" (see runHolder; Linux only).
const holderEnv = "OURO_SANDBOX_TEST_HOLDER"
