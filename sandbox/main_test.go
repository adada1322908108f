package sandbox

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	MaybeRunLauncher()
	code := testMainWithCache(m)
	os.Exit(code)
}
