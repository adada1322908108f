package ui

import (
	"context"
	"fmt"
	"strings"

	"github.com/ouroagent/ouro/permission"
)

// replApprover asks the person at the REPL about a call the policy could not decide: it
// shows the exact action, its reach and the rule an "always" would save, and reads one
// line: y (once), s (this session), a (always, saved to .ouro/settings.local.json), or
// n (no), optionally followed by a reason for the model ("n: use make instead"). Any
// other answer is not taken as one: the choices are shown again.
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
	short := "y"
	if p.SuggestedRule != "" {
		opts += fmt.Sprintf("  [s] yes for this session (%s)  [a] always (saved to .ouro/settings.local.json)", p.SuggestedRule)
		short = "y, s, a"
	}
	fmt.Fprintf(r.Out, "  %s  [n] no — add a reason after n to tell the model\n? ", opts)
	for {
		line, err := r.readLine(ctx)
		if err != nil {
			return permission.Answer{Choice: permission.No, Reason: "the user did not answer"}, err
		}
		if ans, ok := parseApproval(line, p.SuggestedRule != ""); ok {
			return ans, nil
		}
		fmt.Fprintf(r.Out, "  %q is not an answer: type %s or n (n: a reason, to tell the model why)\n? ", strings.TrimSpace(line), short)
	}
}

// parseApproval reads an answer line: the first word chooses, the rest of a "no" is the
// reason given to the model ("n because…", "no: because…", "n, because…"). ok is false
// for anything else, an empty line included, so a stray key is never taken as an answer.
func parseApproval(line string, canRemember bool) (ans permission.Answer, ok bool) {
	line = strings.TrimSpace(line)
	i := strings.IndexAny(line, " \t:,;-")
	word, rest := line, ""
	if i >= 0 {
		word, rest = line[:i], line[i+1:]
	}
	switch strings.ToLower(word) {
	case "y", "yes":
		return permission.Answer{Choice: permission.Once}, strings.TrimSpace(rest) == ""
	case "s", "session":
		return permission.Answer{Choice: permission.Session}, canRemember && strings.TrimSpace(rest) == ""
	case "a", "always":
		return permission.Answer{Choice: permission.Always}, canRemember && strings.TrimSpace(rest) == ""
	case "n", "no":
		reason := strings.TrimSpace(strings.TrimLeft(rest, " \t:,;-"))
		if reason == "" {
			reason = "the user said no"
		}
		return permission.Answer{Choice: permission.No, Reason: reason}, true
	}
	return permission.Answer{}, false
}

// approveGrant asks the person whether a skill or agent file an ouro session wrote may
// grant what it asks for: y approves, n refuses; any other answer asks again.
func (a *replApprover) approveGrant(path, what, why string) bool {
	r := a.r
	r.inMu.Lock()
	defer r.inMu.Unlock()
	r.endLine()
	fmt.Fprintf(r.Out, "\n%s asks for %s,\n  but %s.\n  Review it, then allow it to grant this from now on? [y] yes  [n] no\n? ", path, what, why)
	for {
		line, err := r.readLine(context.Background())
		if err != nil {
			return false
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true
		case "n", "no":
			return false
		}
		fmt.Fprint(r.Out, "  answer y or n\n? ")
	}
}
