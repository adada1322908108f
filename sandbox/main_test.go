package sandbox

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	MaybeRunLauncher()
	os.Exit(m.Run())
}
