package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Command runs one shell command outside any event, exactly as a command hook runs:
// the same shell, in the project directory, under the sandbox launcher's supervision
// where there is one, with the hooks' environment (ouro's credentials stripped), in a
// process group of its own that the timeout kills whole. stdin is the command's input,
// data only: a command that would run its input as a program (`sh`, `cat | bash`) is
// refused as such a hook is. It returns what the command printed on stdout (the first
// and last part of a very long output) when it exited 0, else an error saying why.
// Claude Code's statusLine runs this way.
func (r *Runner) Command(ctx context.Context, command string, stdin []byte, timeout time.Duration) (string, error) {
	if strings.TrimSpace(command) == "" {
		return "", errors.New("empty command")
	}
	if why := programTaken(command, nil); why != "" {
		return "", fmt.Errorf("not run: %s; its input is data and must never run as a program", why)
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := r.hookCommand(rctx, entry{command: command})
	cmd.Dir = r.cfg.ProjectDir
	cmd.Env = r.env
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := startProcess(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case rctx.Err() != nil:
		return "", fmt.Errorf("timed out after %s and was killed", timeout)
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = fmt.Sprintf("exit status %d", exitErr.ExitCode())
		}
		return "", fmt.Errorf("failed: %s", msg)
	}
	if err != nil {
		return "", fmt.Errorf("could not run: %w", err)
	}
	return stdout.String(), nil
}
