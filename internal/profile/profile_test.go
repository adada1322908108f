package profile

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestStartWritesBothProfiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b") // created
	t.Setenv(Env, dir)
	stop := Start()
	x := 0
	for i := range 1 << 20 {
		x += i * i
	}
	_ = x
	stop()
	stop() // once
	for _, name := range []string{"cpu.pprof", "heap.pprof"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 20 || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) { // pprof's gzipped protobuf
			t.Errorf("%s is no profile: %d bytes %q", name, len(b), b[:min(len(b), 8)])
		}
	}
}

func TestStartWithoutTheVariableWritesNothing(t *testing.T) {
	t.Setenv(Env, "")
	Start()()
	if ChildEnv("workflow") != nil {
		t.Error("a child's environment is changed without OURO_PROFILE")
	}
}

func TestChildEnvPointsAtAFolderOfItsOwn(t *testing.T) {
	t.Setenv(Env, "/tmp/p")
	env := ChildEnv("worker-../x y")
	n := 0
	for _, kv := range env {
		if len(kv) > len(Env) && kv[:len(Env)+1] == Env+"=" {
			n++
		}
	}
	if n != 1 || !slices.Contains(env, Env+"=/tmp/p/worker-.._x_y") {
		t.Errorf("child env: %d entries, %v", n, env[len(env)-1])
	}
}
