// Package helperbin finds ouro's helper programs (ouro-workflow, ouro-openai): the
// programs that keep a large library (a JavaScript engine, the OpenAI SDK) out of the
// memory of every ouro run.
package helperbin

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Locate finds helper name: the path in the environment variable env (read from ouro's
// own environment only, never from settings: a repository must not name a program for
// ouro to run), then next to the running program, then on PATH. The error says what
// needs it and how to install it.
func Locate(name, env, neededFor string) (string, error) {
	if p := os.Getenv(env); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s run in the %s helper, which is not installed next to ouro or on PATH: install it with `go install github.com/ouroagent/ouro/cmd/%s@latest` (or set %s to its path)", neededFor, name, name, env)
}

// Head keeps the first N bytes written to B (a helper's stderr, for the error that
// reports its failure) and drops the rest, never failing the write.
type Head struct {
	B *bytes.Buffer
	N int
}

func (h *Head) Write(p []byte) (int, error) {
	if room := h.N - h.B.Len(); room > 0 {
		h.B.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
