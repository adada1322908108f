package shell

import (
	"path"
	"slices"
	"strings"
)

// GNU getopt_long (and git's parse-options, and curl's parser) take any unambiguous
// prefix of a long option for the option: `sort --ou=f` is `sort --output=f`, `env --ch
// / ls` is `env --chdir / ls`. A table of options compared by exact string would miss
// them, so every long option the analyser and package permission look at is read
// through ResolveLong, against the full list of the program's long options where it is
// known (longOptionTables).

// LongMatch says how a word names a long option.
type LongMatch int

// How a word names a long option.
const (
	NotLong       LongMatch = iota // not a long option ("--" alone, "-x", an operand)
	LongExact                      // the option's whole name
	LongAbbrev                     // an unambiguous prefix of one option, which the program takes for it
	LongAmbiguous                  // a prefix of several options: the program refuses it
	LongUnknown                    // names no option of the table
)

// LongOption is a "--name" or "--name=value" word as a program reads it.
type LongOption struct {
	// Name is the option's full name with its dashes ("--output") when the word names
	// one, else the name part of the word as written.
	Name     string
	Value    string // what follows "=", if HasValue
	HasValue bool
	Match    LongMatch
	// Candidates are the options an ambiguous prefix could stand for.
	Candidates []string
}

// Resolved reports a word that names one option of the table.
func (o LongOption) Resolved() bool { return o.Match == LongExact || o.Match == LongAbbrev }

// Is reports whether the word names one of the options (full names, "--output"), or,
// when it is ambiguous, could stand for one of them.
func (o LongOption) Is(names ...string) bool {
	if o.Resolved() {
		return slices.Contains(names, o.Name)
	}
	if o.Match == LongAmbiguous {
		return slices.ContainsFunc(o.Candidates, func(c string) bool { return slices.Contains(names, c) })
	}
	return false
}

// ResolveLong reads word against a program's long options (names, with their dashes:
// "--output"). With abbrev, as GNU getopt_long does, a whole name wins, else a prefix of
// exactly one name stands for it, and a prefix of several is ambiguous; without, only
// whole names count.
func ResolveLong(word string, names []string, abbrev bool) LongOption {
	if !strings.HasPrefix(word, "--") || word == "--" {
		return LongOption{Match: NotLong}
	}
	name, val, hasVal := strings.Cut(word, "=")
	o := LongOption{Name: name, Value: val, HasValue: hasVal, Match: LongUnknown}
	if slices.Contains(names, name) {
		o.Match = LongExact
		return o
	}
	if !abbrev || name == "--" {
		return o
	}
	for _, n := range names {
		if strings.HasPrefix(n, name) {
			o.Candidates = append(o.Candidates, n)
		}
	}
	switch len(o.Candidates) {
	case 0:
	case 1:
		o.Name, o.Match, o.Candidates = o.Candidates[0], LongAbbrev, nil
	default:
		o.Match = LongAmbiguous
	}
	return o
}

// longTable is the long options of a program.
type longTable struct {
	names []string // every long option, with its dashes
	// exact is set for programs that take only whole names (ripgrep, jq).
	exact bool
}

func longNames(s string) []string {
	var out []string
	for _, n := range strings.Fields(s) {
		out = append(out, "--"+n)
	}
	return out
}

// longOptionTables hold every long option of the programs whose options the analyser
// or package permission judge, as their --help lists them (GNU coreutils 9, grep, sed,
// tar, make, findutils, util-linux, sudo 1.9). Only real options may be listed: a name
// the program lacks would hide the longer option a prefix stands for. A missing one only
// makes its prefixes unknown, which asks.
var longOptionTables = map[string]longTable{
	// Wrappers.
	"env": {names: longNames("block-signal chdir debug default-signal help ignore-environment ignore-signal " +
		"list-signal-handling null split-string unset version")},
	"timeout": {names: longNames("foreground help kill-after preserve-status signal verbose version")},
	"nice":    {names: longNames("adjustment help version")},
	"nohup":   {names: longNames("help version")},
	"time":    {names: longNames("append format help output portability quiet verbose version")},
	"stdbuf":  {names: longNames("error help input output version")},
	"xargs": {names: longNames("arg-file delimiter eof exit help interactive max-args max-chars max-lines " +
		"max-procs no-run-if-empty null open-tty process-slot-var replace show-limits verbose version")},
	"sudo": {names: longNames("askpass background bell chdir chroot close-from command-timeout edit group help " +
		"host list login non-interactive other-user preserve-env preserve-groups prompt remove-timestamp " +
		"reset-timestamp role set-home shell stdin type user validate version")},
	"ionice":  {names: longNames("class classdata help ignore pgid pid uid version")},
	"chrt":    {names: longNames("all-tasks batch deadline fifo help idle max other pid reset-on-fork rr sched-deadline sched-period sched-runtime verbose version")},
	"taskset": {names: longNames("all-tasks cpu-list help pid version")},
	"setsid":  {names: longNames("ctty fork help version wait")},
	"watch":   {names: longNames("beep chgexit color differences equexit errexit exec help interval no-title no-wrap precise version")},
	"flock":   {names: longNames("close command conflict-exit-code exclusive help no-fork nonblock shared timeout unlock verbose version")},
	"su": {names: longNames("command fast group help login preserve-environment pty session-command shell " +
		"supp-group version whitelist-environment")},
	"runuser": {names: longNames("command fast group help login preserve-environment pty session-command shell " +
		"supp-group user version whitelist-environment")},
	"script": {names: longNames("append command echo flush force help log-in log-io log-out log-timing " +
		"logging-format output-limit quiet return timing version")},
	// Readers, and commands whose options name files.
	"sort": {names: longNames("batch-size buffer-size check compress-program debug dictionary-order " +
		"field-separator files0-from general-numeric-sort help human-numeric-sort ignore-case " +
		"ignore-leading-blanks ignore-nonprinting key merge month-sort numeric-sort output parallel " +
		"random-sort random-source reverse sort stable temporary-directory unique version version-sort zero-terminated")},
	"date": {names: longNames("date debug file help iso-8601 reference resolution rfc-3339 rfc-email set universal utc version")},
	"file": {names: longNames("apple brief checking-printout compile debug dereference exclude exclude-quiet " +
		"extension files-from help keep-going list magic-file mime mime-encoding mime-type no-buffer " +
		"no-dereference no-pad no-sandbox parameter preserve-date print0 raw separator special-files " +
		"uncompress uncompress-noreport version")},
	"uniq":  {names: longNames("all-repeated check-chars count group help ignore-case repeated skip-chars skip-fields unique version zero-terminated")},
	"grep":  {names: grepNames},
	"egrep": {names: grepNames},
	"fgrep": {names: grepNames},
	"du": {names: longNames("all apparent-size block-size bytes count-links dereference dereference-args " +
		"exclude exclude-from files0-from help human-readable inodes max-depth no-dereference null " +
		"one-file-system separate-dirs si summarize threshold time time-style total version")},
	"wc": {names: longNames("bytes chars files0-from help lines max-line-length total version words")},
	"diff": {names: longNames("brief color context ed exclude exclude-from expand-tabs from-file help " +
		"horizon-lines changed-group-format ifdef ignore-all-space ignore-blank-lines ignore-case ignore-file-name-case " +
		"ignore-matching-lines ignore-space-change ignore-tab-expansion ignore-trailing-space initial-tab " +
		"label left-column line-format minimal new-file new-group-format new-line-format no-dereference " +
		"no-ignore-file-name-case normal old-group-format old-line-format paginate palette rcs recursive " +
		"report-identical-files show-c-function show-function-line side-by-side speed-large-files " +
		"starting-file strip-trailing-cr suppress-blank-empty suppress-common-lines tabsize text to-file " +
		"unchanged-group-format unchanged-line-format unidirectional-new-file unified version width")},
	"touch": {names: longNames("date help no-create no-dereference reference time version")},
	"chmod": {names: longNames("changes help no-preserve-root preserve-root quiet recursive reference silent verbose version")},
	"chown": {names: longNames("changes dereference from help no-dereference no-preserve-root preserve-root quiet recursive reference silent verbose version")},
	"chgrp": {names: longNames("changes dereference help no-dereference no-preserve-root preserve-root quiet recursive reference silent verbose version")},
	"rm":    {names: longNames("dir force help interactive no-preserve-root one-file-system preserve-root recursive verbose version")},
	"sed": {names: longNames("debug expression file follow-symlinks help in-place line-length null-data posix " +
		"quiet regexp-extended sandbox separate silent unbuffered version zero-terminated")},
	"cp": {names: longNames("archive attributes-only backup context copy-contents debug dereference force help " +
		"interactive link no-clobber no-dereference no-preserve no-target-directory " +
		"one-file-system parents preserve recursive reflink remove-destination sparse strip-trailing-slashes " +
		"suffix symbolic-link target-directory update verbose version")},
	"mv": {names: longNames("backup context debug force help interactive no-clobber no-copy no-target-directory " +
		"strip-trailing-slashes suffix target-directory update verbose version")},
	"ln": {names: longNames("backup directory force help interactive logical no-dereference no-target-directory " +
		"physical relative suffix symbolic target-directory verbose version")},
	"install": {names: longNames("backup compare context debug directory group help mode no-target-directory owner " +
		"preserve-context preserve-timestamps strip strip-program suffix target-directory verbose version")},
	"make":  {names: makeNames},
	"gmake": {names: makeNames},
	"tar": {names: longNames("absolute-names acls add-file after-date anchored append atime-preserve " +
		"auto-compress backup block-number blocking-factor bzip2 catenate check-device check-links checkpoint " +
		"checkpoint-action clamp-mtime compare compress concatenate confirmation create " +
		"delay-directory-restore delete dereference diff directory exclude exclude-backups exclude-caches " +
		"exclude-caches-all exclude-caches-under exclude-from exclude-ignore exclude-ignore-recursive " +
		"exclude-tag exclude-tag-all exclude-tag-under exclude-vcs exclude-vcs-ignores extract file " +
		"files-from force-local format full-time get group group-map gunzip gzip hard-dereference help " +
		"hole-detection ignore-case ignore-command-error ignore-failed-read ignore-zeros incremental " +
		"index-file info-script interactive keep-directory-symlink keep-newer-files keep-old-files label " +
		"level list listed-incremental lzip lzma lzop mode mtime multi-volume new-volume-script newer " +
		"newer-mtime no-acls no-anchored no-auto-compress no-check-device no-delay-directory-restore " +
		"no-ignore-case no-ignore-command-error no-null no-overwrite-dir no-quote-chars no-recursion " +
		"no-same-owner no-same-permissions no-seek no-selinux no-unquote no-verbatim-files-from no-wildcards " +
		"no-wildcards-match-slash no-xattrs null numeric-owner occurrence old-archive one-file-system " +
		"one-top-level overwrite overwrite-dir owner owner-map pax-option portability posix preserve-order " +
		"preserve-permissions quote-chars quoting-style read-full-records record-size recursion " +
		"recursive-unlink remove-files restrict rmt-command rsh-command same-order same-owner " +
		"same-permissions seek selinux show-defaults show-omitted-dirs show-snapshot-field-ranges " +
		"show-stored-names show-transformed-names skip-old-files sort sparse sparse-version starting-file " +
		"strip-components suffix tape-length test-label to-command to-stdout totals touch transform " +
		"uncompress ungzip unlink-first unquote update usage use-compress-program utc verbatim-files-from " +
		"verbose verify version volno-file warning wildcards wildcards-match-slash xattrs xattrs-exclude " +
		"xattrs-include xform xz zstd")},
	// Programs that take only whole names.
	"rg": {exact: true, names: longNames("file ignore-file pre pre-glob")},
	"jq": {exact: true, names: longNames("from-file")},
}

var (
	grepNames = longNames("after-context basic-regexp before-context binary binary-files byte-offset color " +
		"colour context count dereference-recursive devices directories exclude exclude-dir exclude-from " +
		"extended-regexp file files-with-matches files-without-match fixed-strings group-separator help " +
		"ignore-case include initial-tab invert-match label line-buffered line-number line-regexp max-count " +
		"no-filename no-group-separator no-ignore-case no-messages null null-data only-matching perl-regexp " +
		"quiet recursive regexp silent text version with-filename word-regexp")
	makeNames = longNames("always-make assume-new assume-old check-symlink-times debug directory dry-run " +
		"environment-overrides eval file help ignore-errors include-dir jobs just-print keep-going " +
		"load-average makefile max-load new-file no-builtin-rules no-builtin-variables no-keep-going " +
		"no-print-directory no-silent old-file output-sync print-data-base print-directory question quiet " +
		"recon shuffle silent stop touch trace version warn-undefined-variables what-if")
)

// ProgramLong reads word as the program (a command name or path) reads it. known is
// false when the analyser has no full list of the program's long options: the word is
// then read against names alone (the options the caller looks for), a prefix of them
// counting as they do, which takes a word for an option it may not stand for, never the
// reverse.
func ProgramLong(program, word string, names ...string) (o LongOption, known bool) {
	t, ok := longOptionTables[path.Base(program)]
	if !ok {
		return ResolveLong(word, names, true), false
	}
	return ResolveLong(word, t.names, !t.exact), !t.exact
}

// unresolvedLong is the first long option of argv (before "--") that names no option of
// its program, or more than one, for a program whose options are all known.
func unresolvedLong(argv []string) (LongOption, bool) {
	if len(argv) == 0 {
		return LongOption{}, false
	}
	t, ok := longOptionTables[path.Base(argv[0])]
	if !ok || t.exact {
		return LongOption{}, false
	}
	for _, a := range argv[1:] {
		if a == "--" {
			break
		}
		if holdsExpansion(a) {
			continue
		}
		if o := ResolveLong(a, t.names, true); o.Match == LongAmbiguous || o.Match == LongUnknown {
			return o, true
		}
	}
	return LongOption{}, false
}

// describeUnresolved says why o cannot be read, for a reason.
func describeUnresolved(program string, o LongOption) string {
	if o.Match == LongAmbiguous {
		return path.Base(program) + " takes " + o.Name + " for any of " + strings.Join(o.Candidates, ", ") + ", so what it does cannot be told"
	}
	return o.Name + " is not an option of " + path.Base(program) + " the analyser knows, and may stand for one it does not"
}
