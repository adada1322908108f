package scout

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/sergi/go-diff/diffmatchpatch"
	"mvdan.cc/sh/v3/syntax"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// FixResult is what a fix run changed and whether the tests confirm it.
type FixResult struct {
	Status string `json:"status"` // fixed or not_fixed
	Reason string `json:"reason,omitempty"`
	// Changed are the files edited, relative to the repository.
	Changed   []string `json:"changed"`
	DiffLines int      `json:"diff_lines"` // lines added plus removed, over all edits
	// TestedAfterEdit: the model itself ran the test command after its last edit and it
	// passed.
	TestedAfterEdit bool `json:"tested_after_edit"`
	// TestPassed is ouro's own run of the test command once the model stopped.
	TestPassed bool   `json:"test_passed"`
	TestOutput string `json:"test_output"`
	// Proposed are a dry run's edits, which were checked but not written.
	Proposed []Proposal `json:"proposed,omitempty"`
	// Refused are the calls the guard refused, each with its reason.
	Refused []Refusal `json:"refused,omitempty"`
}

// Refusal is a call the fix guard refused.
type Refusal struct {
	Tool   string `json:"tool"`
	File   string `json:"file,omitempty"` // the file an edit aimed at, relative to the repository
	Reason string `json:"reason"`
}

// setupFix offers Edit and Bash next to the read-only tools, with only the test command
// allowed for Bash (the edit guard checks every edit itself).
func (s *Check) setupFix(p *Plan) error {
	f := s.fix
	if _, err := testWords(f.Test); err != nil {
		return fmt.Errorf("fix: --test %q: %w", f.Test, err)
	}
	for _, g := range f.Allowed {
		if !doublestar.ValidatePattern(filepath.ToSlash(g)) {
			return fmt.Errorf("fix: --allow %q is not a valid glob", g)
		}
	}
	for _, e := range f.Extensions {
		if !strings.HasPrefix(e, ".") {
			return fmt.Errorf("fix: file type %q must start with a dot, like .go", e)
		}
	}
	s.maxDiff = orInt(f.MaxDiffLines, DefaultMaxDiffLines)
	// Next to the read-only tools: the tool whose rules cover every file write, and the
	// one whose rules cover every command.
	p.Tools = append(p.Tools, tool.ActWrite.RuleName(), tool.ActExec.RuleName())
	// Edits are the guard's to judge; acceptEdits lets those it passes through.
	p.Mode = "acceptEdits"
	p.Allow = append(p.Allow, "Bash("+strings.TrimSpace(f.Test)+" *)")
	return nil
}

func extensionsOf(f *FixConfig) []string {
	if len(f.Extensions) > 0 {
		return f.Extensions
	}
	return DefaultExtensions
}

// gateEdit applies the seed's checks before an edit runs: inside the workspace (the
// path gate did that), an allowed file, an allowed type, the old text there exactly once,
// and the run's diff within its limit. Bash may run the test command and nothing else.
func (s *Check) gateEdit(c tool.Call, in map[string]any) agent.Decision {
	name := c.Name
	deny := func(format string, a ...any) agent.Decision {
		reason := fmt.Sprintf(format, a...)
		file, _ := in["file_path"].(string)
		if real, err := s.ws.Resolve(file); err == nil && file != "" {
			file = filepath.ToSlash(s.ws.Rel(real))
		}
		s.edits.refuse(Refusal{Tool: name, File: file, Reason: reason})
		return agent.Decision{Deny: true, Reason: reason}
	}
	// What the call does decides, as its tool describes it: a command must be the test
	// command; a write must be one replacement (Edit's old_string → new_string), not a
	// whole file or several edits; anything else is the path gate's.
	acts, err := tool.DescribeByName(c)
	if err != nil {
		return deny("%v", err)
	}
	edit := false
	for _, a := range acts {
		switch a.Kind {
		case tool.ActExec:
			if err := s.checkTestCommand(a.Command); err != nil {
				return deny("only the test command may run here: %v. Run `%s` (arguments may follow it).", err, s.fix.Test)
			}
		case tool.ActWrite:
			if !replacement(in) {
				return deny("%s is not available in a guarded fix; use Edit", name)
			}
			edit = true
		}
	}
	if !edit {
		return agent.Decision{}
	}
	path, _ := in["file_path"].(string)
	real, err := s.ws.Resolve(path)
	if err != nil {
		return deny("%v", err)
	}
	rel := filepath.ToSlash(s.ws.Rel(real))
	if ext := filepath.Ext(rel); !slices.Contains(extensionsOf(s.fix), ext) {
		return deny("%s: files of type %q may not be edited in this fix (allowed: %s)", rel, ext, strings.Join(extensionsOf(s.fix), " "))
	}
	if len(s.fix.Allowed) > 0 && !MatchAny(s.fix.Allowed, rel) {
		return deny("%s is not among the files this fix may change (%s); change one of those instead", rel, strings.Join(s.fix.Allowed, ", "))
	}
	if all, _ := in["replace_all"].(bool); all {
		return deny("replace_all is not allowed in a guarded fix: give an old_string that occurs exactly once")
	}
	old, _ := in["old_string"].(string)
	repl, _ := in["new_string"].(string)
	data, err := os.ReadFile(real)
	if err != nil {
		return deny("%s: %v", rel, err)
	}
	if n := strings.Count(string(data), old); old == "" || n != 1 {
		return deny("old_string must occur exactly once in %s, but it occurs %d times; include more surrounding lines to make it unique", rel, n)
	}
	lines := diffLines(old, repl)
	if used := s.edits.diffTotal(); used+lines > s.maxDiff {
		return deny("this edit changes %d lines and %d were already changed; the fix may change at most %d lines in all. Make a smaller change.", lines, used, s.maxDiff)
	}
	if s.fix.DryRun {
		// The last check: this run was not granted write permission.
		s.edits.propose(rel, old, repl)
		return agent.Decision{Deny: true, Reason: fmt.Sprintf("this is a dry run: write permission was not granted, so %s was not changed. The edit passed every other check and is recorded as proposed; describe the whole fix in your answer.", rel)}
	}
	return agent.Decision{}
}

// MatchAny reports whether a repository-relative, slash-separated path matches one of the
// globs (doublestar; a leading "./" is ignored): the files a fix may change, as the
// guard and an evaluation's external check both read them.
func MatchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(strings.TrimPrefix(filepath.ToSlash(g), "./"), rel); ok {
			return true
		}
	}
	return false
}

// relEdit is an edited path relative to the repository, slash-separated (as given when
// it does not resolve).
func (s *Check) relEdit(p string) string {
	real, err := s.ws.Resolve(p)
	if err != nil {
		return filepath.ToSlash(filepath.Clean(p))
	}
	return filepath.ToSlash(s.ws.Rel(real))
}

// diffLines counts the lines an edit adds plus those it removes.
func diffLines(old, repl string) int {
	// An edit's strings usually end mid-file without a newline; the text after them is
	// the same on both sides, so a shared newline keeps the last line from counting as
	// removed and added again.
	if !strings.HasSuffix(old, "\n") && !strings.HasSuffix(repl, "\n") {
		old, repl = old+"\n", repl+"\n"
	}
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(old, repl)
	n := 0
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines) {
		if d.Type != diffmatchpatch.DiffEqual {
			n += strings.Count(d.Text, "\n")
			if !strings.HasSuffix(d.Text, "\n") {
				n++
			}
		}
	}
	return n
}

// testWords splits a command into literal words; anything a shell would interpret
// (pipes, lists, redirects, substitutions, variables) is refused.
func testWords(cmd string) ([]string, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil, fmt.Errorf("not a valid command: %v", err)
	}
	if len(f.Stmts) != 1 {
		return nil, fmt.Errorf("one command only, got %d", len(f.Stmts))
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Background || st.Negated || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, fmt.Errorf("a plain command is required, without pipes, lists, redirections or variable assignments")
	}
	var words []string
	for _, w := range call.Args {
		lit := w.Lit()
		if lit == "" {
			// Quoted words are fine as long as nothing in them expands.
			var sb strings.Builder
			for _, p := range w.Parts {
				switch q := p.(type) {
				case *syntax.SglQuoted:
					sb.WriteString(q.Value)
				case *syntax.DblQuoted:
					for _, qp := range q.Parts {
						l, ok := qp.(*syntax.Lit)
						if !ok {
							return nil, fmt.Errorf("expansions are not allowed")
						}
						sb.WriteString(l.Value)
					}
				case *syntax.Lit:
					sb.WriteString(q.Value)
				default:
					return nil, fmt.Errorf("expansions are not allowed")
				}
			}
			lit = sb.String()
		}
		words = append(words, lit)
	}
	return words, nil
}

// checkTestCommand accepts the configured test command, optionally with more arguments.
func (s *Check) checkTestCommand(cmd string) error {
	want, _ := testWords(s.fix.Test)
	got, err := testWords(cmd)
	if err != nil {
		return err
	}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		return fmt.Errorf("%q does not start with the test command", strings.TrimSpace(cmd))
	}
	for _, arg := range got[len(want):] {
		if !strings.HasPrefix(arg, "-") {
			continue // a package, a test name, a flag's value
		}
		name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !slices.Contains(testFlags, name) {
			return fmt.Errorf("the flag %s may not follow the test command (some flags, like go test -exec, run other programs); allowed: -%s", arg, strings.Join(testFlags, " -"))
		}
	}
	return nil
}

// testFlags are the flags the model may add to the test command: they select, repeat or
// report tests, and none of them runs another program.
var testFlags = []string{"run", "skip", "v", "count", "short", "race", "timeout", "failfast", "cover", "shuffle",
	"k", "q", "x", "f", "b", "s", "p", "t", "verbose", "quiet", "locals", "buffer", "catch"}

// editLog follows a fix run: which edits succeeded, and whether a passing test run came
// after the last one.
type editLog struct {
	mu       sync.Mutex
	proposed []Proposal // a dry run's edits, refused but recorded
	refused  []Refusal  // calls the guard refused for a reason
	files    []string
	diff     int
	seq      int
	lastEdit int // seq of the last successful edit
	lastPass int // seq of the last passing test run
	lastTest int // seq of the last test run
	reminded bool
}

// observe notes one finished call; rel turns an edited path into the repository-relative
// form the result reports.
func (l *editLog) observe(c tool.Call, res llm.Block, rel func(string) string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	in, _ := decodeObject(c.Input)
	acts, _ := tool.DescribeByName(c)
	for _, a := range acts {
		switch {
		case a.Kind == tool.ActWrite && replacement(in):
			if res.IsError {
				return
			}
			l.lastEdit = l.seq
			p, _ := in["file_path"].(string)
			if rel != nil {
				p = rel(p)
			}
			if !slices.Contains(l.files, p) {
				l.files = append(l.files, p)
			}
			old, _ := in["old_string"].(string)
			repl, _ := in["new_string"].(string)
			l.diff += diffLines(old, repl)
			return
		case a.Kind == tool.ActExec:
			l.lastTest = l.seq
			if !res.IsError {
				l.lastPass = l.seq
			}
			return
		}
	}
}

// replacement reports whether an edit's input is one replacement of text by text
// (old_string → new_string), the only edit a guarded fix makes.
func replacement(in map[string]any) bool {
	_, old := in["old_string"].(string)
	_, repl := in["new_string"].(string)
	return old && repl
}

// Proposal is an edit a dry run refused to write.
type Proposal struct {
	File      string `json:"file"`
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
}

func (l *editLog) propose(file, old, repl string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.proposed = append(l.proposed, Proposal{File: file, OldString: old, NewString: repl})
	l.diff += diffLines(old, repl) // proposals spend the diff budget as edits would
}

func (l *editLog) refuse(r Refusal) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused = append(l.refused, r)
}

func (l *editLog) diffTotal() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.diff
}

// untested says what is missing when the model stops: a passing test run after its last
// edit ("" when there is one, or when nothing was edited).
func (l *editLog) untested(test string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.lastEdit == 0:
		return ""
	case l.lastTest < l.lastEdit:
		return fmt.Sprintf("You have not run the tests since your last edit. Run `%s` now: the fix counts as done only if it passes after the last edit.", test)
	case l.lastPass < l.lastTest:
		return fmt.Sprintf("The last run of `%s` failed. The fix is not done: find out why and fix it, or say plainly that it still fails.", test)
	}
	return ""
}

// finishFix runs the test command itself, once the model has stopped: the verdict is
// ouro's, not the model's.
func (s *Check) finishFix(ctx context.Context, runTest TestRunner) *FixResult {
	l := &s.edits
	l.mu.Lock()
	fr := &FixResult{Changed: slices.Clone(l.files), DiffLines: l.diff, TestedAfterEdit: l.lastEdit > 0 && l.lastPass > l.lastEdit,
		Proposed: slices.Clone(l.proposed), Refused: slices.Clone(l.refused)}
	l.mu.Unlock()
	if s.fix.DryRun {
		fr.Status, fr.Reason = StatusProposed, fmt.Sprintf("a dry run: %d edit(s) proposed, nothing written", len(fr.Proposed))
		if len(fr.Proposed) == 0 {
			fr.Status, fr.Reason = StatusNotFixed, "a dry run that proposed no edit"
		}
		return fr
	}
	res := runTest(ctx, s.fix.Test)
	fr.TestOutput = res.Text()
	fr.TestPassed = !res.IsError
	switch {
	case !fr.TestPassed:
		fr.Status, fr.Reason = StatusNotFixed, fmt.Sprintf("the test command %q fails after the run", s.fix.Test)
	case len(fr.Changed) == 0:
		fr.Status, fr.Reason = StatusNotFixed, "nothing was changed (the tests pass as they are)"
	default:
		fr.Status = StatusFixed
	}
	return fr
}

func decodeObject(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	err := json.Unmarshal(raw, &m)
	return m, err
}
