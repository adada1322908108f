package permission

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/shell"
	"github.com/ouroagent/ouro/tool"
)

// bashDecisions is how one simple command of a Bash line is decided, read top to
// bottom: the first row whose condition holds gives the verdict; when none holds, the
// command is asked about (bashCheck.askVerdict). The facts the rows look at are
// gathered once beforehand (gatherBash), so a row is a plain condition and outcome.
var bashDecisions = []bashDecision{
	{name: "deny rule on the command",
		when: func(k *bashCheck) bool { return k.deny.command != nil },
		then: func(k *bashCheck) Verdict {
			r := k.deny.command.rule
			return Verdict{Behavior: Deny, Source: r.String(), Reason: fmt.Sprintf("%s is denied by the rule %s", k.label, r)}
		}},
	{name: "deny rule on a written path",
		when: func(k *bashCheck) bool { return k.deny.write != nil },
		then: func(k *bashCheck) Verdict {
			h := k.deny.write
			return Verdict{Behavior: Deny, Source: h.rule.String(), Reason: fmt.Sprintf("%s writes %s, which the rule %s denies", k.label, h.path, h.rule)}
		}},
	{name: "deny rule on a read path",
		when: func(k *bashCheck) bool { return k.deny.read != nil },
		then: func(k *bashCheck) Verdict {
			h := k.deny.read
			return Verdict{Behavior: Deny, Source: h.rule.String(), Reason: fmt.Sprintf("%s reads %s, which the rule %s denies", k.label, h.path, h.rule)}
		}},
	{name: "plan mode, and the command writes a file",
		// Plan mode writes nothing, whatever the allow rules say (Bash(*) included), as
		// in Claude Code.
		when: func(k *bashCheck) bool { return k.mode == ModePlan && (len(k.writes) > 0 || k.unknown != "") },
		then: func(k *bashCheck) Verdict {
			what := k.unknown
			if len(k.writes) > 0 {
				what = "writes " + k.writes[0].real
			}
			return Verdict{Behavior: Deny, Source: "mode plan", FromMode: true,
				Reason: fmt.Sprintf("plan mode writes no file, whatever the allow rules say, and %s %s; present the plan and wait for it to be approved", k.label, what)}
		}},
	{name: "ask rule on the command",
		when: func(k *bashCheck) bool { return k.ask.command != nil },
		then: func(k *bashCheck) Verdict {
			r := k.ask.command.rule
			return Verdict{Behavior: Ask, FromAskRule: true, Source: r.String(), Reason: fmt.Sprintf("the rule %s asks before %s", r, k.label)}
		}},
	{name: "ask rule on a written path",
		when: func(k *bashCheck) bool { return k.ask.write != nil },
		then: func(k *bashCheck) Verdict {
			h := k.ask.write
			return Verdict{Behavior: Ask, FromAskRule: true, Source: h.rule.String(), Reason: fmt.Sprintf("the rule %s asks before %s writes %s", h.rule, k.label, h.path)}
		}},
	{name: "bypassPermissions mode, and the command writes outside an isolated agent's workspace",
		when: func(k *bashCheck) bool { return k.mode == ModeBypass && len(k.outside) > 0 },
		then: func(k *bashCheck) Verdict {
			return Verdict{Behavior: Ask, Source: "outside the workspace",
				Reason: fmt.Sprintf("%s writes %s, outside the workspace; %s", k.label, strings.Join(k.outside, ", "), confinedNote)}
		}},
	{name: "bypassPermissions mode",
		when: func(k *bashCheck) bool { return k.mode == ModeBypass },
		then: func(*bashCheck) Verdict {
			return Verdict{Behavior: Allow, Source: "mode bypassPermissions", Reason: "bypassPermissions mode allows it"}
		}},
	{name: "the command is approved, and so is all it touches",
		when: func(k *bashCheck) bool { return k.approval.kind != notApproved && len(k.problems) == 0 },
		then: func(k *bashCheck) Verdict {
			return Verdict{Behavior: Allow, Source: k.approval.source(), Reason: k.approval.reason(k.label)}
		}},
	{name: "plan mode, and the command may change something",
		when: func(k *bashCheck) bool {
			return k.mode == ModePlan && (!k.approval.readOnly() || len(k.writes) > 0 || k.unknown != "")
		},
		then: func(k *bashCheck) Verdict {
			v := k.askVerdict()
			v.Behavior, v.Source, v.Suggest, v.FromMode = Deny, "mode plan", nil, true
			v.Reason = "plan mode allows only read-only commands: " + v.Reason
			return v
		}},
}

// bashDecision is one row of bashDecisions.
type bashDecision struct {
	name string
	when func(*bashCheck) bool
	then func(*bashCheck) Verdict
}

// decideBash reads the decision table for k; it returns the verdict and the name of the
// row that gave it ("ask" when none did).
func decideBash(k *bashCheck) (Verdict, string) {
	for _, d := range bashDecisions {
		if d.when(k) {
			return d.then(k), d.name
		}
	}
	return k.askVerdict(), "ask"
}

// checkCommand decides on one simple command.
func (st *state) checkCommand(c shell.Command) Verdict {
	v, _ := decideBash(st.gatherBash(c))
	return v
}

// bashCheck is what the decision on one simple command looks at.
type bashCheck struct {
	mode  Mode
	label string // the command as quoted in reasons
	// deny and ask hold the first rule of each kind that matches the command, a path it
	// writes, or a path it reads (ask rules on reads do not exist for Bash).
	deny struct{ command, write, read *ruleHit }
	ask  struct{ command, write *ruleHit }
	// writes are the paths the command writes, resolved; unknown says why some are only
	// known at run time ("" when all are known).
	writes  []target
	unknown string
	// unknownRead says why some path the command reads is only known at run time: it
	// cannot be checked against the deny rules or the workspace.
	unknownRead string
	// distrust says why neither rules nor the read-only set may allow the command
	// (`sudo`, `PATH=...`), "" when they may.
	distrust string
	// approval is how the command itself is allowed, if it is.
	approval approval
	// problems are what the command's writes and reads still need approval for; fixable
	// is whether an allow rule could settle them, suggest the rules that would.
	problems []string
	fixable  bool
	suggest  []string
	// protected: the command writes a protected path.
	protected bool
	// outside are the paths outside the workspace the command writes without an allow
	// rule, in a view confined to its workspace (Policy.WithWorkspace); nil otherwise.
	outside []string
}

// ruleHit is a rule that matched, and the path it matched ("" for the command itself).
type ruleHit struct {
	rule Rule
	path string
}

// Commands acceptEdits mode allows inside the workspace, as in Claude Code.
var acceptEditsCommands = []string{"mkdir", "touch", "mv", "cp"}

// gatherBash collects the facts the decision table reads.
func (st *state) gatherBash(c shell.Command) *bashCheck {
	k := &bashCheck{mode: st.mode}
	key := strings.Join(c.Argv, " ")
	text := strings.Join(strings.Fields(c.Text), " ")
	if text == "" {
		text = key
	}
	k.label = "`" + clipText(text, 300) + "`"
	command := st.kindSubject(tool.ActExec)
	command.Command = key
	command.Env = strings.Join(c.Env, " ")
	// Deny and ask rules also see the line as written (wrappers included) and the
	// command by its plain name, so `Bash(curl *)` holds for `sudo curl` and
	// `/usr/bin/curl` alike. Allow rules see only the command as it will run.
	restrictive := []Subject{command}
	for _, alt := range []string{text, plainName(c.Argv)} {
		if alt != "" && alt != key {
			a := command
			a.Command = alt
			restrictive = append(restrictive, a)
		}
	}
	onCommand := func(rules []Rule) *ruleHit {
		for _, r := range rules {
			for _, q := range restrictive {
				if r.Match(q) {
					return &ruleHit{rule: r}
				}
			}
		}
		return nil
	}
	onPath := func(rules []Rule, s Subject, ts []target, readCoversWrite bool) *ruleHit {
		for i := range ts {
			if r, ok := st.firstMatch(rules, s, &ts[i], readCoversWrite); ok {
				return &ruleHit{rule: r, path: ts[i].real}
			}
		}
		return nil
	}

	bases := st.commandDirs(c)
	k.writes, k.unknown = st.writeTargets(c, bases)
	reads, unknownRead := st.readTargets(c, bases)
	reads = st.flagTargets(k, c, bases, reads)
	named, unknownNamed := st.inputNames(c, bases)
	reads = append(reads, named...)
	if unknownRead == "" {
		unknownRead = unknownNamed
	}
	if why := st.followedReads(c, bases, reads); why != "" {
		k.problems = append(k.problems, why)
	}
	k.writes = append(k.writes, st.envWrites(k, c, bases)...)
	edit, read := st.kindSubject(tool.ActWrite), st.kindSubject(tool.ActRead)
	k.deny.command = onCommand(st.deny)
	k.deny.write = onPath(st.deny, edit, k.writes, true)
	k.deny.read = onPath(st.deny, read, reads, false)
	k.ask.command = onCommand(st.asks)
	k.ask.write = onPath(st.asks, edit, k.writes, false)
	if recursiveReader(c.Argv) && k.deny.read == nil {
		below := reads
		if searchesHere(c) {
			for _, b := range bases {
				if t, err := st.resolve(b, b); err == nil {
					below = append(below, t)
				}
			}
		}
		for _, t := range below {
			if r, p, ok := st.deniedBelow(t.real); ok {
				k.problems = append(k.problems, fmt.Sprintf("reads every file below %s, and the rule %s denies reading %s there (the Grep tool leaves such files out)", t.real, r, p))
				break
			}
		}
	}
	if k.deny.read == nil {
		if msg := st.namesDenied(c, bases); msg != "" {
			k.problems = append(k.problems, msg)
		}
	}
	if unknownRead != "" && k.deny.read == nil {
		k.unknownRead = unknownRead
	}
	if bases == nil && len(c.Argv) > 0 && k.unknownRead == "" {
		k.unknownRead = "runs in a folder only known when it runs, so what it reads there cannot be checked"
	}

	k.distrust = distrust(c)
	if k.distrust == "" {
		k.distrust = st.hiddenOptions(c, bases)
	}
	if k.distrust == "" {
		k.distrust = st.foreignGit(c, bases)
	}
	k.approval = st.approve(c, command, k.distrust)
	st.findProblems(k, c.Argv, reads)
	if st.confined {
		for i := range k.writes {
			if tg := &k.writes[i]; !st.inside(tg.real) && !st.editAllowed(tg) {
				k.outside = append(k.outside, tg.real)
			}
		}
	}
	return k
}

// approvalKind is how a command itself may be allowed.
type approvalKind int

const (
	notApproved         approvalKind = iota
	approvedNoCommand                // a bare assignment or redirect
	approvedByRule                   // an allow rule
	approvedReadOnly                 // the built-in read-only set
	approvedAcceptEdits              // a file command in acceptEdits mode
)

type approval struct {
	kind approvalKind
	rule Rule // for approvedByRule
}

// approve finds how the command itself is allowed, first way first; an untrusted
// command (distrust != "") is not.
func (st *state) approve(c shell.Command, command Subject, distrust string) approval {
	if distrust != "" {
		return approval{}
	}
	if len(c.Argv) == 0 {
		return approval{kind: approvedNoCommand}
	}
	if r, ok := st.allowMatch(command, nil); ok {
		return approval{kind: approvedByRule, rule: r}
	}
	if IsReadOnly(withoutRedirects(c)) && (!isGit(c) || st.gitUsesOwnRepository(c)) {
		return approval{kind: approvedReadOnly}
	}
	if st.mode == ModeAcceptEdits && isOneOf(filepath.Base(c.Argv[0]), acceptEditsCommands) {
		return approval{kind: approvedAcceptEdits}
	}
	return approval{}
}

// readOnly reports an approval that holds only because the command reads: what it
// reads outside the workspace needs a rule of its own.
func (a approval) readOnly() bool {
	return a.kind == approvedNoCommand || a.kind == approvedReadOnly
}

// source names the approval in a verdict's Source.
func (a approval) source() string {
	switch a.kind {
	case approvedNoCommand:
		return "no command"
	case approvedByRule:
		return a.rule.String()
	case approvedReadOnly:
		return "read-only command"
	case approvedAcceptEdits:
		return "mode acceptEdits"
	}
	return "no matching rule"
}

// reason says why the approved command labelled label is allowed.
func (a approval) reason(label string) string {
	switch a.kind {
	case approvedNoCommand:
		return label + " runs no command"
	case approvedReadOnly:
		return label + " only reads"
	case approvedAcceptEdits:
		return "acceptEdits mode allows " + label + " inside the workspace"
	}
	return "allowed by the rule " + a.source()
}

// findProblems lists what the command's writes and reads need approval for, whatever
// allows the command itself.
func (st *state) findProblems(k *bashCheck, argv []string, reads []target) {
	k.fixable = k.distrust == "" && len(k.problems) == 0
	if rule := suggestBash(argv); rule != "" && k.approval.kind == notApproved {
		k.suggest = append(k.suggest, rule)
	}
	if k.unknown != "" {
		k.problems = append(k.problems, k.unknown)
		k.fixable = false
	}
	for i := range k.writes {
		tg := &k.writes[i]
		switch {
		case st.protected(tg):
			k.problems = append(k.problems, fmt.Sprintf("writes %s, a protected path (.git, .ouro, .claude, .mcp.json, ~/.ouro.json, ~/.claude.json and shell startup files are never written without asking)", tg.real))
			k.fixable, k.protected = false, true
		case st.editAllowed(tg):
		case !st.inside(tg.real):
			k.problems = append(k.problems, fmt.Sprintf("writes %s, outside the workspace", tg.real))
			k.suggest = appendNew(k.suggest, "Edit("+st.pathSpec(tg.real, false)+")")
		case k.approval.kind == approvedByRule || st.mode == ModeAcceptEdits:
		case k.approval.kind != notApproved:
			// A read-only command (or a bare redirect) that writes a file is a write:
			// default mode asks, as for Write.
			k.problems = append(k.problems, fmt.Sprintf("writes %s", tg.real))
		}
	}
	if k.unknownRead != "" && (k.approval.readOnly() || st.readRules()) {
		k.problems = append(k.problems, k.unknownRead)
		k.fixable = false
	}
	// Reads outside the workspace need a Read rule, whatever allows the command: a rule
	// like Bash(cat *) is about the command, Read rules about where it may read.
	read := st.kindSubject(tool.ActRead)
	for i := range reads {
		tg := &reads[i]
		if st.inside(tg.real) {
			continue
		}
		if _, ok := st.allowMatch(read, tg); ok {
			continue
		}
		k.problems = appendNew(k.problems, fmt.Sprintf("reads %s, outside the workspace", tg.real))
		k.suggest = appendNew(k.suggest, "Read("+st.pathSpec(tg.real, false)+")")
	}
}

// askVerdict is the verdict on a command no row allowed or refused: what it needs approval for.
func (k *bashCheck) askVerdict() Verdict {
	v := Verdict{Behavior: Ask, Source: k.approval.source(), Protected: k.protected}
	problems := append([]string(nil), k.problems...)
	if k.approval.kind == notApproved {
		why := "no allow rule covers " + k.label
		if k.distrust != "" {
			why = k.label + " " + k.distrust + ", so neither rules nor the read-only set can allow it"
		}
		problems = append([]string{why}, problems...)
	} else if len(problems) > 0 {
		problems[0] = k.label + " " + problems[0]
	}
	v.Reason = strings.Join(problems, "; ")
	if k.fixable {
		v.Suggest = k.suggest
	}
	return v
}

// readRules reports a deny or ask rule on reading files: a read only known at run
// time cannot be checked against it.
func (st *state) readRules() bool {
	for _, rs := range [][]Rule{st.deny, st.asks} {
		for _, r := range rs {
			if toolMatches(r.Tool, st.kindSubject(tool.ActRead)) {
				return true
			}
		}
	}
	return false
}

// flagTargets judges the flags of toolFlagTable in c: a program to run is a problem no
// rule settles; a file written joins k.writes, a file or folder whose code is read
// joins reads and, outside the workspace, is a problem. It returns reads.
func (st *state) flagTargets(k *bashCheck, c shell.Command, bases []string, reads []target) []target {
	for _, h := range toolFlagHits(c.Argv) {
		switch h.kind {
		case flagRuns:
			k.problems = append(k.problems, h.describe()+"; an allow rule for the command does not cover that")
		case flagWrites, flagReads:
			if h.value == "" {
				k.problems = append(k.problems, h.describe()+", which is missing")
				continue
			}
			verb := "writes"
			if h.kind == flagReads {
				verb = "reads"
			}
			ts, why := st.shellTargets(h.value, holdsExpansion(h.value), bases, verb, true)
			if why != "" {
				k.problems = append(k.problems, h.describe()+": "+why)
			}
			if h.kind == flagWrites {
				k.writes = append(k.writes, ts...)
				continue
			}
			reads = append(reads, ts...)
		}
	}
	return reads
}

// searchesHere reports a search given no folder, which searches the one it runs in:
// grep -r PATTERN, rg PATTERN (the pattern is their only operand).
func searchesHere(c shell.Command) bool {
	if len(c.Argv) == 0 || !isOneOf(filepath.Base(c.Argv[0]), []string{"grep", "egrep", "fgrep", "rg", "ag", "ack"}) {
		return false
	}
	return len(c.Reads) <= 1
}
