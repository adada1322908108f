package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// latestSession is what a bare -r/--resume stands for: the most recent session here.
const latestSession = "\x00latest"

// normalizeArgs fixes two ways Claude Code users' command lines would be misread:
//   - a bare -r/--resume (no ID, as in Claude Code, where it opens a picker) must not take
//     the next flag as its value: it resumes the most recent session. That is the root's
//     flag: after a subcommand's name, --resume is the subcommand's own (ouro workflow show
//     RUNID --resume) and is left as written;
//   - `ouro -p fix` runs the prompt "fix": with -p, the first word is the prompt even when
//     it names a subcommand (runRoot reports that).
func normalizeArgs(root *cobra.Command, args []string) (out []string, runRoot bool) {
	bare := func(i int) bool {
		a := args[i]
		return (a == "-r" || a == "--resume") && (i+1 == len(args) || strings.HasPrefix(args[i+1], "-"))
	}
	print, first, firstAt := false, "", len(args)
	fs := root.Flags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			first, firstAt = a, i
			break
		}
		if bare(i) {
			continue // no value follows
		}
		name, hasValue := strings.TrimLeft(a, "-"), strings.Contains(a, "=")
		name, _, _ = strings.Cut(name, "=")
		var f *pflag.Flag
		if strings.HasPrefix(a, "--") {
			f = fs.Lookup(name)
		} else if len(name) > 0 {
			// -p, or shorthands run together (-pr): the last one may take a value.
			for _, c := range name {
				if s := fs.ShorthandLookup(string(c)); s != nil && s.Name == "print" {
					print = true
				}
			}
			f = fs.ShorthandLookup(name[len(name)-1:])
		}
		if f != nil && f.Name == "print" {
			print = true
		}
		if f != nil && !hasValue && f.NoOptDefVal == "" {
			i++ // the flag's value
		}
	}
	sub := false
	if first != "" {
		for _, c := range root.Commands() {
			if c.Name() == first || c.HasAlias(first) {
				sub = true
			}
		}
	}
	runRoot = print && sub
	out = make([]string, 0, len(args))
	for i, a := range args {
		if bare(i) && (i < firstAt || !sub || runRoot) {
			out = append(out, "--resume="+latestSession)
			continue
		}
		out = append(out, a)
	}
	return out, runRoot
}
