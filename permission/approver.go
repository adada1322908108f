package permission

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/internal/settingsfile"
	"github.com/ouroagent/ouro/tool"
)

// Prompt is what an approver is asked about one call.
type Prompt struct {
	Call tool.Call
	// Summary is the exact action: the command, or the tool and the resolved path.
	Summary string
	// Reach says what the call touches and why it asks: the resolved paths, the rule
	// that asks, the hook that wants a person to decide.
	Reach string
	// SuggestedRule is the narrowest rule that would allow the call (several joined by
	// ", "); "" when no rule can (a protected path). Rules lists them one by one: the
	// "session" and "always" answers add exactly these.
	SuggestedRule string
	Rules         []string
}

// Choice is an approver's answer.
type Choice int

// The choices.
const (
	// No refuses the call; Answer.Reason goes to the model.
	No Choice = iota
	// Once allows this call only.
	Once
	// Session allows it, and what the suggested rules cover, for the rest of the session.
	Session
	// Always does the same and writes the rules to .ouro/settings.local.json.
	Always
)

func (c Choice) String() string {
	switch c {
	case Once:
		return "once"
	case Session:
		return "session"
	case Always:
		return "always"
	}
	return "no"
}

// Answer is an approver's decision.
type Answer struct {
	Choice Choice
	// Reason is passed to the model when the answer is No.
	Reason string
	// UpdatedInput, with Once, replaces the call's input (the Agent SDK's canUseTool may
	// rewrite it); the policy judges the new input again, so it cannot reach what a deny
	// rule refuses.
	UpdatedInput json.RawMessage
}

// Approver decides about calls the policy asks about.
type Approver interface {
	Approve(ctx context.Context, p Prompt) (Answer, error)
}

// Headless is the approver of a run nobody watches: it refuses, and says what would have
// been needed.
type Headless struct{}

// Approve always answers No, with a reason naming the action and how to allow it.
func (Headless) Approve(_ context.Context, p Prompt) (Answer, error) {
	msg := fmt.Sprintf("headless run: %s would need approval (%s), and nobody is there to give it", p.Summary, p.Reach)
	if p.SuggestedRule != "" {
		msg += fmt.Sprintf(". To allow it, add %s to permissions.allow in the settings or pass --allowedTools %q", p.SuggestedRule, strings.Join(p.Rules, " "))
	}
	return Answer{Choice: No, Reason: msg}, nil
}

// Terminal asks a person on a terminal: it shows the action, its reach and the rule an
// "always" would save, and reads one line: y (once), s (this session), a (always),
// n or anything else (no), optionally followed by a reason for the model ("n use make
// instead"). Prompts are shown one at a time.
type Terminal struct {
	In  io.Reader
	Out io.Writer

	mu    sync.Mutex
	once  sync.Once
	lines chan termLine
	stale bool
}

type termLine struct {
	text string
	err  error
}

// read starts the one goroutine that reads In, so a prompt that is cancelled does not
// leave a second reader behind to steal the next answer.
func (t *Terminal) read() {
	t.lines = make(chan termLine, 1)
	go func() {
		br := bufio.NewReader(t.In)
		for {
			line, err := br.ReadString('\n')
			t.lines <- termLine{line, err}
			if err != nil {
				close(t.lines)
				return
			}
		}
	}()
}

// Approve shows p and reads the answer. End of input is a refusal.
func (t *Terminal) Approve(ctx context.Context, p Prompt) (Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.once.Do(t.read)
	// After a cancelled prompt, a line already typed was meant for that prompt: drop
	// it, or it could approve an action the user has not seen.
	for t.stale {
		select {
		case l, ok := <-t.lines:
			if !ok || l.err != nil {
				return Answer{Choice: No, Reason: "the user did not answer (end of input)"}, nil
			}
		default:
			t.stale = false
		}
	}
	fmt.Fprintf(t.Out, "\n%s wants to run:\n  %s\n", p.Call.Name, p.Summary)
	if p.Reach != "" {
		fmt.Fprintf(t.Out, "  why it asks: %s\n", p.Reach)
	}
	opts := "[y] yes once  [n] no (add a reason after n to tell the model)"
	if p.SuggestedRule != "" {
		opts = fmt.Sprintf("[y] yes once  [s] yes, and allow %s this session  [a] always allow %s (saved to .ouro/settings.local.json)  [n] no (add a reason after n)", p.SuggestedRule, p.SuggestedRule)
	}
	fmt.Fprintf(t.Out, "  %s\n> ", opts)

	var l termLine
	select {
	case <-ctx.Done():
		t.stale = true
		return Answer{}, ctx.Err()
	case got, ok := <-t.lines:
		if !ok {
			got.err = io.EOF
		}
		l = got
	}
	line := strings.TrimSpace(l.text)
	if line == "" && l.err != nil {
		return Answer{Choice: No, Reason: "the user did not answer (end of input)"}, nil
	}
	word, rest, _ := strings.Cut(line, " ")
	switch strings.ToLower(word) {
	case "y", "yes":
		return Answer{Choice: Once}, nil
	case "s", "session":
		if p.SuggestedRule != "" {
			return Answer{Choice: Session}, nil
		}
		return Answer{Choice: Once}, nil
	case "a", "always":
		if p.SuggestedRule != "" {
			return Answer{Choice: Always}, nil
		}
		return Answer{Choice: Once}, nil
	}
	reason := strings.TrimSpace(rest)
	if !strings.EqualFold(word, "n") && !strings.EqualFold(word, "no") {
		reason = line
	}
	return Answer{Choice: No, Reason: reason}, nil
}

// AppendAllowRule adds rule to permissions.allow in the settings file at path, creating
// the file and its folder if needed and keeping every other key and rule. The file is
// replaced atomically, so a crash leaves either the old or the new file.
func AppendAllowRule(path, rule string) error { return AppendRule(path, "allow", rule) }

// AppendRule adds rule to permissions.<kind> ("allow", "ask" or "deny") in the settings
// file at path, as AppendAllowRule does; a rule already there is not added twice.
func AppendRule(path, kind, rule string) error {
	return editRules(path, func(lists map[string][]string) bool {
		if slices.Contains(lists[kind], rule) {
			return false
		}
		lists[kind] = append(lists[kind], rule)
		return true
	})
}

// RemoveRule takes rule out of permissions.allow, ask and deny in the settings file at
// path and returns the lists it was in (none: the file is left as it was).
func RemoveRule(path, rule string) (from []string, err error) {
	err = editRules(path, func(lists map[string][]string) bool {
		for _, kind := range ruleKinds {
			if i := slices.Index(lists[kind], rule); i >= 0 {
				lists[kind] = slices.Delete(lists[kind], i, i+1)
				from = append(from, kind)
			}
		}
		return len(from) > 0
	})
	return from, err
}

// ruleKinds are the rule lists of a settings file's permissions.
var ruleKinds = []string{"allow", "ask", "deny"}

// editRules lets edit change the rule lists of the settings file at path and, when it
// says it changed them, writes the file back atomically, every other key kept.
func editRules(path string, edit func(lists map[string][]string) bool) error {
	changed := false
	err := settingsfile.Edit(path, "rules", func(doc map[string]json.RawMessage) (bool, error) {
		var err error
		changed, err = editRuleLists(path, doc, edit)
		return changed, err
	})
	if err != nil || !changed {
		return err
	}
	return ignoreLocal(path)
}

// editRuleLists is editRules' change of doc's permissions lists.
func editRuleLists(path string, doc map[string]json.RawMessage, edit func(lists map[string][]string) bool) (bool, error) {
	var err error
	perms := map[string]json.RawMessage{}
	if raw, ok := doc["permissions"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &perms); err != nil {
			return false, fmt.Errorf("%s: permissions is not an object (%v)", path, err)
		}
	}
	lists := map[string][]string{}
	for _, kind := range ruleKinds {
		if raw, ok := perms[kind]; ok && string(raw) != "null" {
			var l []string
			if err := json.Unmarshal(raw, &l); err != nil {
				return false, fmt.Errorf("%s: permissions.%s is not a list of rules (%v)", path, kind, err)
			}
			lists[kind] = l
		}
	}
	if !edit(lists) {
		return false, nil
	}
	for _, kind := range ruleKinds {
		if l, ok := lists[kind]; ok {
			if perms[kind], err = json.Marshal(l); err != nil {
				return false, err
			}
		}
	}
	if doc["permissions"], err = json.Marshal(perms); err != nil {
		return false, err
	}
	return true, nil
}

// ignoreLocal keeps a local settings file out of git, as its name promises: a .gitignore
// beside it lists it (added to, never rewritten), so approvals one person saved are not
// committed for everyone.
func ignoreLocal(path string) error {
	ignore := filepath.Join(filepath.Dir(path), ".gitignore")
	name := filepath.Base(path)
	data, err := os.ReadFile(ignore)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", ignore, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if l := strings.TrimSpace(line); l == name || l == "/"+name {
			return nil
		}
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	data = append(data, name+"\n"...)
	if err := settingsfile.Write(ignore, data); err != nil {
		return fmt.Errorf("keeping %s out of git: %w", path, err)
	}
	return nil
}
