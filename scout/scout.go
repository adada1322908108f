// Package scout is the seed's first project: a read-only agent that surveys a repository
// (entry points, core modules, tests, risks) and cites a file location for every
// conclusion, and its second version, a guarded fixer that may edit within limits and
// must show a passing test run.
//
// This package is the mechanism: Prepare plans a run, and its Check joins a session as a
// mechanism.Part like any other mechanism; it does not know the harness. scout/runner
// opens the session on the harness and runs it.
//
// Four invariants are enforced in code, not asked of the model in the prompt:
//  1. every tool_use gets its tool_result (the loop guarantees it; Finish checks the
//     finished conversation and fails the run if it does not hold);
//  2. every path resolves inside the workspace (a Gate refuses any other, before a tool
//     runs);
//  3. turns, wall time and output length are bounded (Limits, with defaults);
//  4. every file cited in the final answer was seen in this run: Evidence records what
//     Read and Grep showed, and at the first stop the model is sent back once with the
//     unsupported citations named; what is still unsupported is marked unverified, and
//     the result's status says so.
package scout

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// DefaultPrompt is the survey the scout makes when it is given no question.
const DefaultPrompt = "Survey this repository: report its entry points, its core modules, how to run its tests, and at least one risk."

// Defaults for the bounds of invariant 3.
const (
	DefaultMaxTurns     = 30
	DefaultMaxDuration  = 10 * time.Minute
	DefaultMaxOutput    = 8000 // tokens per model response
	DefaultMaxDiffLines = 80
)

// Statuses of a scout or fix result, besides the run's own (budget_exhausted, failed …).
const (
	StatusVerified   = "verified"   // every citation is backed by what the run saw
	StatusUnverified = "unverified" // some citations are not, or there are none
	StatusIncomplete = "incomplete" // a survey without one of its sections
	StatusFixed      = "fixed"      // the test command passed after the last edit
	StatusNotFixed   = "not_fixed"  // it did not
	StatusProposed   = "proposed"   // a dry run: the fix was described, not written
)

// Config configures a run. Dir and one of Model/Provider are what matter; the rest has
// defaults.
type Config struct {
	Dir    string // the repository; "" → the working directory
	Prompt string // "" → DefaultPrompt (scout); required for a fix

	Model    string       // as --model takes it (claude-…, openai:…, scripted:FILE)
	Provider llm.Provider // bypasses Model
	Home     string       // ouro's state folder ("" → OURO_HOME or ~/.ouro)
	Settings string       // extra settings (a file or inline JSON), as --settings
	// UserConfigHome, when set, is where the user's own configuration is looked for
	// instead of the home directory (see harness.Dirs.UserConfig).
	UserConfigHome string

	MaxTurns    int
	MaxDuration time.Duration
	MaxOutput   int // tokens per response
	// Deny are extra deny rules ("Read(./.env)"), for files the run must not touch.
	Deny []string

	// Fix, when set, makes this the guarded fixer.
	Fix *FixConfig

	Observers       []agent.Observer
	SandboxLauncher bool
	Version         string
	Warn            io.Writer
}

// FixConfig is what the guarded fixer may do.
type FixConfig struct {
	// Test is the test command; the model may run it, optionally followed by more
	// arguments, and nothing else. Required.
	Test string
	// Allowed are doublestar globs (relative to Dir) of the files edits may touch; empty
	// allows any file whose type is allowed.
	Allowed []string
	// Extensions are the file types edits may touch (".go"); empty → DefaultExtensions.
	Extensions []string
	// MaxDiffLines bounds the lines added plus removed over the whole run (0 → default).
	MaxDiffLines int
	// DryRun withholds write permission for this run: every edit is refused (with the
	// diff it would have made), so the model can only propose the fix, and nothing on
	// disk changes.
	DryRun bool
}

// DefaultExtensions are the file types a fix may edit when none are configured: source
// code, not configuration, lock files, binaries or shell scripts (a test runner is often
// one, and editing it is the easiest false fix).
var DefaultExtensions = []string{".go", ".py", ".js", ".jsx", ".ts", ".tsx", ".rs", ".java", ".kt", ".c", ".h", ".cc", ".cpp", ".hpp", ".rb", ".php", ".cs", ".swift", ".scala", ".md", ".txt"}

// Result is what a run found.
type Result struct {
	Status  string        `json:"status"`
	Reason  string        `json:"reason,omitempty"`
	Outcome agent.Outcome `json:"outcome"`
	Report  string        `json:"report"` // the model's final answer
	// Conclusions are the report's bullets with their citations, each checked.
	Conclusions []Conclusion `json:"conclusions"`
	Unverified  []Citation   `json:"unverified,omitempty"`
	// MissingSections are the survey's sections (SurveySections) the report lacks.
	MissingSections []string `json:"missing_sections,omitempty"`
	// Corrected is true when the model was sent back once over unsupported citations.
	Corrected bool `json:"corrected"`
	// FilesSeen are the files this run read or matched, relative to Dir.
	FilesSeen []string `json:"files_seen"`
	// Fix is set for a fix run.
	Fix        *FixResult `json:"fix,omitempty"`
	SessionID  string     `json:"session_id"`
	Transcript string     `json:"transcript"`
	// ToolDefinitionBytes is the size of the tool definitions sent with every request.
	ToolDefinitionBytes int `json:"tool_definition_bytes"`
}

// OK reports whether the run reached its goal: a verified survey, a confirmed fix, or a
// dry run's proposed fix.
func (r Result) OK() bool {
	return r.Status == StatusVerified || r.Status == StatusFixed || r.Status == StatusProposed
}

// Plan is a run made ready: what the session must be opened with, and the mechanism
// that checks the run. scout/runner opens the session on the harness.
type Plan struct {
	Dir       string // the repository, absolute, symlinks resolved
	Prompt    string // the question, DefaultPrompt, or what to fix
	System    string // the system prompt, replacing the default
	Limits    agent.Limits
	MaxOutput int // tokens per response
	// Tools are the tools offered, Mode the permission mode, Allow the rules allowed
	// without asking (a fix's test command) and Deny the rules denied.
	Tools []string
	Mode  string
	Allow []string
	Deny  []string
	// Check is the mechanism: join it to the session (Options.Extensions), then Finish.
	Check *Check
}

// Prepare checks cfg and makes the run's plan.
func Prepare(cfg Config) (Plan, error) {
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return Plan{}, fmt.Errorf("scout: %s is not a directory", dir)
	}
	prompt := strings.TrimSpace(cfg.Prompt)
	survey := prompt == "" && cfg.Fix == nil
	if prompt == "" {
		if cfg.Fix != nil {
			return Plan{}, errors.New("fix: say what to fix, e.g. ouro fix . \"make TestParse pass\"")
		}
		prompt = DefaultPrompt
	}
	if cfg.Fix != nil && strings.TrimSpace(cfg.Fix.Test) == "" {
		return Plan{}, errors.New("fix: a test command is required (--test \"go test ./...\"), since a fix counts as done only when it passes")
	}
	limits := agent.Limits{MaxTurns: orInt(cfg.MaxTurns, DefaultMaxTurns), MaxDuration: cfg.MaxDuration}
	if limits.MaxDuration == 0 {
		limits.MaxDuration = DefaultMaxDuration
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Plan{}, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	p := Plan{Dir: abs, Prompt: prompt, Limits: limits, MaxOutput: orInt(cfg.MaxOutput, DefaultMaxOutput),
		Tools: []string{"Glob", "Grep", "Read"}, Mode: "plan", Deny: cfg.Deny,
		Check: &Check{fix: cfg.Fix, survey: survey}}
	if cfg.Fix != nil {
		if err := p.Check.setupFix(&p); err != nil {
			return Plan{}, err
		}
	}
	p.System = systemPrompt(abs, cfg.Fix, p.Check.maxDiff)
	return p, nil
}

// Join is the check joining its session: the gate on paths (and edits), the citation
// check at the stop, and the observer that records the evidence.
func (s *Check) Join(env mechanism.Env) (mechanism.Part, error) {
	if s.ws != nil {
		return mechanism.Part{}, errors.New("this check has joined a session already; prepare a new run")
	}
	s.ws = env.Workspace
	s.evidence = NewEvidence(env.Workspace)
	return mechanism.Part{Name: "scout", Gates: []agent.Gate{s}, BeforeStop: []agent.BeforeStop{s},
		Observers: []agent.Observer{s.observe}}, nil
}

// TestRunner runs a fix's test command once the model has stopped: ouro's own run, whose
// result is the verdict.
type TestRunner func(ctx context.Context, command string) tool.Result

// Finish judges a finished run: its conversation, the report's citations against the
// evidence, and for a fix ouro's own test run. The session's fields of the result
// (SessionID, Transcript, ToolDefinitionBytes) are the caller's to fill.
func (s *Check) Finish(ctx context.Context, out agent.Outcome, conv []llm.Message, runTest TestRunner) Result {
	res := Result{Outcome: out, Report: out.Result, Corrected: s.corrected}
	res.Conclusions = ParseReportIn(out.Result, s.ws.CWD(), s.exists)
	res.Unverified = s.evidence.Verify(res.Conclusions)
	res.FilesSeen = s.evidence.Files()
	s.addExcerpts(res.Conclusions)
	if s.survey {
		res.MissingSections = missingSections(res.Conclusions)
	}
	// Invariant 1, checked on what actually happened rather than assumed.
	if err := llm.ValidateConversation(conv); err != nil && out.Status != agent.StatusInterrupted {
		res.Status, res.Reason = string(agent.StatusFailed), "the conversation broke the tool_use/tool_result pairing: "+err.Error()
		return res
	}
	if s.fix != nil && out.Status != agent.StatusInterrupted && ctx.Err() == nil {
		// Even a run that ran out of turns or time leaves its edits: say whether the
		// tests pass with them.
		res.Fix = s.finishFix(ctx, runTest)
	}
	switch {
	case out.Status != agent.StatusCompleted:
		res.Status, res.Reason = string(out.Status), out.Reason
	case s.fix != nil:
		res.Status, res.Reason = res.Fix.Status, res.Fix.Reason
	case countCitations(res.Conclusions) == 0:
		res.Status, res.Reason = StatusUnverified, "the report cites no file location"
	case len(res.Unverified) > 0:
		res.Status = StatusUnverified
		res.Reason = fmt.Sprintf("%d citation(s) name what this run never read: %s", len(res.Unverified), rawList(res.Unverified))
	case len(res.MissingSections) > 0:
		res.Status = StatusIncomplete
		res.Reason = "the survey has no " + strings.Join(res.MissingSections, ", ") + " section"
	default:
		res.Status = StatusVerified
	}
	return res
}

func orInt(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func countCitations(cs []Conclusion) int {
	n := 0
	for _, c := range cs {
		n += len(c.Citations)
	}
	return n
}

func rawList(cs []Citation) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Raw)
	}
	return strings.Join(parts, ", ")
}

// Check is one run's mechanism: the workspace gate, the evidence, the correction request
// and, for a fix, the edit guard and the test tracker. Prepare makes it; it joins one
// session (Join), and Finish judges the run.
type Check struct {
	ws        *workspace.Workspace
	evidence  *Evidence
	corrected bool

	survey  bool // the standard survey, whose sections are checked
	fix     *FixConfig
	maxDiff int
	edits   editLog
}

func (s *Check) observe(e agent.Event) {
	// Only calls that ran count: a denied call showed nothing and tested nothing.
	if e.Type != agent.EventToolEnd || e.Result == nil || s.evidence == nil || e.Start.IsZero() {
		return
	}
	s.evidence.Record(*e.Call, *e.Result)
	if s.fix != nil {
		s.edits.observe(*e.Call, *e.Result, s.relEdit)
	}
}

// exists reports whether rel names a file inside the workspace.
func (s *Check) exists(rel string) bool {
	p, err := s.ws.Resolve(filepath.FromSlash(rel))
	if err != nil {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// pathFields are the inputs of the offered tools that name a file or folder.
var pathFields = []string{"file_path", "path"}

// Gate refuses any call whose path leaves the workspace (invariant 2), and for a fix,
// any edit outside the guard's limits.
func (s *Check) Gate(_ context.Context, c tool.Call) agent.Decision {
	in, _ := decodeObject(c.Input)
	for _, f := range pathFields {
		p, ok := in[f].(string)
		if !ok || p == "" {
			continue
		}
		if _, err := s.ws.Resolve(p); err != nil {
			var out *workspace.OutsideError
			if errors.As(err, &out) {
				reason := fmt.Sprintf("%s %q is outside the workspace %s; only files inside it may be used", f, p, s.ws.CWD())
				if s.fix != nil {
					s.edits.refuse(Refusal{Tool: c.Name, File: p, Reason: reason})
				}
				return agent.Decision{Deny: true, Reason: reason}
			}
		}
	}
	if s.fix != nil {
		return s.gateEdit(c, in)
	}
	return agent.Decision{}
}

// BeforeStop sends the model back once when its answer cites what it never saw, or
// cites nothing; for a fix, once when no passing test run followed its last edit.
func (s *Check) BeforeStop(_ context.Context, st *agent.Stop) agent.StopDecision {
	if s.fix != nil {
		if msg := s.edits.untested(s.fix.Test); msg != "" && !s.edits.reminded {
			s.edits.reminded = true
			return agent.StopDecision{Continue: true, Message: msg}
		}
	}
	if s.corrected {
		return agent.StopDecision{}
	}
	cs := ParseReportIn(st.Final.Text(), s.ws.CWD(), s.exists)
	bad := s.evidence.Verify(cs)
	var missing []string
	if s.survey {
		missing = missingSections(cs)
	}
	if len(bad) == 0 && countCitations(cs) > 0 && len(missing) == 0 {
		return agent.StopDecision{}
	}
	s.corrected = true
	var sb strings.Builder
	switch {
	case len(bad) > 0:
		sb.WriteString("Your answer cites evidence this run has not seen:\n")
		for _, c := range bad {
			fmt.Fprintf(&sb, "- `%s`: %s\n", c.Raw, c.Problem)
		}
		sb.WriteString("Read those lines (or match them with Grep in content mode) and correct each citation, or drop the conclusions you cannot support.")
	case countCitations(cs) == 0:
		sb.WriteString("Your answer cites no file location. Every conclusion needs its evidence as `path:line` (relative to the repository root), from lines you read in this run.")
	}
	if len(missing) > 0 {
		fmt.Fprintf(&sb, " The survey lacks these sections: %s; add each (## heading, then cited bullets), or say in it what you could not find.", strings.Join(missing, ", "))
	}
	sb.WriteString(" Then give your complete answer again; it replaces the previous one.")
	return agent.StopDecision{Continue: true, Message: sb.String()}
}

// SurveySections are the sections the standard survey must have.
var SurveySections = []string{"Entry points", "Core modules", "Tests", "Risks"}

// missingSections lists the survey sections no conclusion sits under (headings match
// loosely: "Entry point", "How to run the tests" and "Risk" count).
func missingSections(cs []Conclusion) []string {
	var missing []string
	for _, want := range SurveySections {
		key := strings.ToLower(strings.TrimSuffix(want, "s"))
		if want == "Core modules" {
			key = "module"
		}
		if want == "Tests" {
			key = "test"
		}
		found := false
		for _, c := range cs {
			if strings.Contains(strings.ToLower(c.Section), key) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, want)
		}
	}
	return missing
}

// addExcerpts puts the cited lines (at most five) beside each verified line citation.
func (s *Check) addExcerpts(cs []Conclusion) {
	cache := map[string][]string{}
	for i := range cs {
		for j := range cs[i].Citations {
			c := &cs[i].Citations[j]
			if !c.Verified || c.Line == 0 {
				continue
			}
			lines, ok := cache[c.Path]
			if !ok {
				if p, err := s.ws.Resolve(filepath.FromSlash(c.Path)); err == nil {
					if data, err := os.ReadFile(p); err == nil && len(data) <= 4<<20 {
						lines = strings.Split(string(data), "\n")
					}
				}
				cache[c.Path] = lines
			}
			end := max(c.EndLine, c.Line)
			end = min(end, c.Line+4, len(lines))
			if c.Line <= end {
				c.Excerpt = strings.Join(lines[c.Line-1:end], "\n")
			}
		}
	}
}

func dryRunNote(fix *FixConfig) string {
	if !fix.DryRun {
		return ""
	}
	return "\nThis is a dry run: you have no write permission. Each Edit is checked and recorded as a\nproposal but not written, so the tests keep failing; make the edits the fix needs, then\ndescribe the whole fix.\n"
}

func systemPrompt(dir string, fix *FixConfig, maxDiff int) string {
	var sb strings.Builder
	if fix == nil {
		sb.WriteString("You are ouro scout, a read-only code reconnaissance agent. You explore the repository with Glob, Grep and Read; you cannot change anything, run anything or reach outside the repository.\n")
	} else {
		sb.WriteString("You are ouro fix, a careful agent that makes the smallest change that fixes the problem, and proves it with the tests.\n")
	}
	fmt.Fprintf(&sb, "\nRepository: %s\n", dir)
	sb.WriteString(`
Work like this: find the files that matter with Glob and Grep, Read them (large files in
parts with offset and limit), and base every statement on what you saw.

Your final answer is Markdown. Put each conclusion in a bullet and end it with its
evidence: a backticked citation ` + "`path:line`" + ` or ` + "`path:start-end`" + `, the path relative to the
repository root. Cite only lines this run has shown you (read them, or match them with
Grep in content mode): citations are checked against what you actually read, and
unsupported ones are reported as unverified.
`)
	if fix == nil {
		sb.WriteString(`
For a survey use these sections: "## Entry points", "## Core modules", "## Tests" (how to
run them) and "## Risks" (at least one).
`)
		return sb.String()
	}
	fmt.Fprintf(&sb, `
You may change files with Edit (Read a file before you edit it; old_string must occur
exactly once). Edits are checked before they run: only files of these types: %s`, strings.Join(extensionsOf(fix), " "))
	if len(fix.Allowed) > 0 {
		fmt.Fprintf(&sb, `; only these files: %s`, strings.Join(fix.Allowed, ", "))
	}
	fmt.Fprintf(&sb, `; at most %d changed lines in all. Do not edit tests to make them pass.
%s

Run the tests with Bash, exactly: %s (you may add packages or test-selecting flags such as -run and -v after it; no other
command is allowed). The fix counts as done only if that command passes after your last
edit, so run it before you finish, and say plainly if it still fails.
`, maxDiff, dryRunNote(fix), fix.Test)
	return sb.String()
}
