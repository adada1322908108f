package market

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// gitTimeout bounds one git command (a clone of a large marketplace included).
const gitTimeout = 10 * time.Minute

var shaRE = regexp.MustCompile(`^[0-9a-fA-F]{7,64}$`)

// git runs git with args as its argument vector (never through a shell), with no
// terminal prompt and no transport that runs commands.
func git(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	full := append([]string{"-c", "protocol.ext.allow=never", "-c", "core.hooksPath=" + os.DevNull}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// clone clones url into dest (which must not exist) at ref (a branch or tag; "" the
// default branch), then checks out sha when given; it returns the commit checked out.
func clone(url, ref, sha, dest string) (string, error) {
	if err := checkGitURL(url); err != nil {
		return "", err
	}
	if strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("git ref %q may not start with '-'", ref)
	}
	if sha != "" && !shaRE.MatchString(sha) {
		return "", fmt.Errorf("git sha %q is not a commit id", sha)
	}
	args := []string{"clone", "--quiet", "--no-recurse-submodules"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	if _, err := git("", append(args, "--", url, dest)...); err != nil {
		return "", err
	}
	if sha != "" {
		if _, err := git(dest, "checkout", "--quiet", "--detach", sha); err != nil {
			return "", err
		}
	}
	return head(dest)
}

// head is the commit checked out in dir ("" when dir is not in a git work tree).
func head(dir string) (string, error) {
	return git(dir, "rev-parse", "HEAD")
}
