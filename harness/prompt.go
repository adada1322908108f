package harness

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/outputstyle"
	"github.com/ouroagent/ouro/settings"
)

// DefaultSystemPrompt is the system prompt of a session in dir when none is given.
func DefaultSystemPrompt(dir string) string { return basePrompt(dir, true) }

// basePrompt is ouro's own prompt; coding false leaves out the coding instructions (how
// to work on code, how to answer), as a custom output style without
// keep-coding-instructions asks: what stays is who ouro is, that tool results are real,
// honesty about what was not verified, and the environment.
func basePrompt(dir string, coding bool) string {
	var sb strings.Builder
	if coding {
		sb.WriteString(`You are ouro, a coding agent working in the user's repository from their terminal.
You act through tools; their results are real observations. Work in small verified steps:
look before you change, change only what the task needs, then check the result (build,
run the tests) before you say it is done. Code written only in your answer changes
nothing: change files with Edit or Write, and run commands with Bash. When you cannot verify something, say so
plainly instead of claiming success. If a tool call fails, read the error and change
your approach; do not repeat an identical failing call. Keep answers short and concrete;
cite files as path:line.
`)
	} else {
		sb.WriteString(`You are ouro, an agent working in the user's terminal. You act through tools; their
results are real observations. When you cannot verify something, say so plainly instead
of claiming success. If a tool call fails, read the error and change your approach; do
not repeat an identical failing call.
`)
	}
	// The tools are not listed here: their definitions (and ToolSearch's list of the
	// deferred ones) name them already.
	fmt.Fprintf(&sb, "\n<env>\nWorking directory: %s\nIs a git repository: %v\nPlatform: %s/%s\nToday's date: %s\n</env>\n",
		dir, isGitRepo(dir), runtime.GOOS, runtime.GOARCH, time.Now().Format("2006-01-02"))
	return sb.String()
}

// stylePrompt is the output style's section: its name and its text.
func stylePrompt(s outputstyle.Style) string {
	if s.Name == "" || s.Prompt == "" {
		return ""
	}
	return "# Output style: " + s.Name + "\n" + s.Prompt
}

// ouroTrailer is what includeCoAuthoredBy true adds: an Assisted-by trailer (ouro has no
// mail address to put in a Co-Authored-By one) and a one-line pull request footer.
const (
	ouroTrailer = "Assisted-by: ouro"
	ouroFooter  = "Written with ouro."
)

// Attribution is what commit messages and pull request bodies the agent writes end
// with: the attribution setting's commit and pr ("" is none), else includeCoAuthoredBy
// (true: ouro's trailer and footer), else none. ouro's default is none: the commit is the
// user's, and a tool's name in every commit is branding they did not ask for.
func Attribution(a settings.Attribution) (commit, pr string) {
	if a.CoAuthoredBy != nil && *a.CoAuthoredBy {
		commit, pr = ouroTrailer, ouroFooter
	}
	if a.Commit != nil {
		commit = strings.TrimSpace(*a.Commit)
	}
	if a.PR != nil {
		pr = strings.TrimSpace(*a.PR)
	}
	return commit, pr
}

// attributionPrompt tells the model exactly what to add to commits and pull requests, or
// that it adds nothing (models trained on other agents add their own trailer otherwise).
func attributionPrompt(a settings.Attribution) string {
	commit, pr := Attribution(a)
	if commit == "" && pr == "" {
		return "Commit messages and pull request descriptions you write carry no trailer or footer naming you, ouro or the model (no Co-Authored-By, no \"Generated with\")."
	}
	var sb strings.Builder
	if commit == "" {
		sb.WriteString("Commit messages you write carry no trailer naming you, ouro or the model.\n")
	} else {
		fmt.Fprintf(&sb, "End each commit message you write with a blank line and then exactly:\n%s\n", commit)
	}
	if pr == "" {
		sb.WriteString("Pull request descriptions you write carry no footer naming you, ouro or the model.")
	} else {
		fmt.Fprintf(&sb, "End each pull request description you write with a blank line and then exactly:\n%s", pr)
	}
	return sb.String()
}

func isGitRepo(dir string) bool { return repoRoot(dir) != "" }
