package harness

import (
	"fmt"
	"runtime"
	"strings"
	"time"
)

// DefaultSystemPrompt is the system prompt of a session in dir when none is given.
func DefaultSystemPrompt(dir string) string {
	var sb strings.Builder
	sb.WriteString(`You are ouro, a coding agent working in the user's repository from their terminal.
You act through tools; their results are real observations. Work in small verified steps:
look before you change, change only what the task needs, then check the result (build,
run the tests) before you say it is done. When you cannot verify something, say so
plainly instead of claiming success. If a tool call fails, read the error and change
your approach; do not repeat an identical failing call. Keep answers short and concrete;
cite files as path:line.
`)
	// The tools are not listed here: their definitions (and ToolSearch's list of the
	// deferred ones) name them already.
	fmt.Fprintf(&sb, "\n<env>\nWorking directory: %s\nIs a git repository: %v\nPlatform: %s/%s\nToday's date: %s\n</env>\n",
		dir, isGitRepo(dir), runtime.GOOS, runtime.GOARCH, time.Now().Format("2006-01-02"))
	return sb.String()
}

func isGitRepo(dir string) bool { return repoRoot(dir) != "" }
