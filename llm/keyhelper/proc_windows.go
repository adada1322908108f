package keyhelper

import (
	"fmt"
	"os/exec"

	"github.com/ouroagent/ouro/internal/gitbash"
)

// shell is Git Bash, as for Bash commands and hooks: there is no /bin/sh.
func shell() (string, error) {
	p, err := gitbash.Locate()
	if err != nil {
		return "", fmt.Errorf("apiKeyHelper runs in a POSIX shell: %w", err)
	}
	return p, nil
}

// ownGroup does nothing more than os/exec's cancellation here.
func ownGroup(*exec.Cmd) {}
