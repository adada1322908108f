package ui

import (
	"context"
	"fmt"
	"strings"

	"github.com/ouroagent/ouro/permission"
)

// replApprover asks the person at the REPL about a call the policy could not decide: it
// shows the exact action, its reach and the rule an "always" would save, and reads one
// line: y (once), s (this session), a (always, saved to .ouro/settings.local.json),
// n or anything else (no), optionally followed by a reason for the model.
type replApprover struct{ r *REPL }

func (a *replApprover) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	r := a.r
	r.inMu.Lock()
	defer r.inMu.Unlock()
	r.endLine()
	fmt.Fprintf(r.Out, "\n%s wants to: %s\n", p.Call.Name, p.Summary)
	if p.Reach != "" {
		fmt.Fprintf(r.Out, "  why it asks: %s\n", p.Reach)
	}
	opts := "[y] yes once"
	if p.SuggestedRule != "" {
		opts += fmt.Sprintf("  [s] yes for this session (%s)  [a] always (saved to .ouro/settings.local.json)", p.SuggestedRule)
	}
	fmt.Fprintf(r.Out, "  %s  [n] no — add a reason after n to tell the model\n? ", opts)
	line, err := r.readLine(ctx)
	if err != nil {
		return permission.Answer{Choice: permission.No, Reason: "the user did not answer"}, err
	}
	return parseApproval(line, p.SuggestedRule != ""), nil
}

// parseApproval reads an answer line: the first word chooses, the rest of a "no" is the
// reason given to the model.
func parseApproval(line string, canRemember bool) permission.Answer {
	line = strings.TrimSpace(line)
	word, rest, _ := strings.Cut(line, " ")
	switch strings.ToLower(word) {
	case "y", "yes":
		return permission.Answer{Choice: permission.Once}
	case "s", "session":
		if canRemember {
			return permission.Answer{Choice: permission.Session}
		}
	case "a", "always":
		if canRemember {
			return permission.Answer{Choice: permission.Always}
		}
	}
	reason := strings.TrimSpace(rest)
	if w := strings.ToLower(word); w != "n" && w != "no" && line != "" {
		reason = line
	}
	if reason == "" {
		reason = "the user said no"
	}
	return permission.Answer{Choice: permission.No, Reason: reason}
}

// approveGrant asks the person whether a skill or agent file an ouro session wrote may
// grant what it asks for. Only y or yes approves; anything else keeps the grant off.
func (a *replApprover) approveGrant(path, what, why string) bool {
	r := a.r
	r.inMu.Lock()
	defer r.inMu.Unlock()
	r.endLine()
	fmt.Fprintf(r.Out, "\n%s asks for %s,\n  but %s.\n  Review it, then allow it to grant this from now on? [y] yes  [n] no\n? ", path, what, why)
	line, err := r.readLine(context.Background())
	if err != nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
