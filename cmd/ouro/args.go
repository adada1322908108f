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
//     the next flag as its value: it resumes the most recent session;
//   - `ouro -p fix` runs the prompt "fix": with -p, the first word is the prompt even when
//     it names a subcommand (runRoot reports that).
func normalizeArgs(root *cobra.Command, args []string) (out []string, runRoot bool) {
	out = make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "-r" || a == "--resume") && (i+1 == len(args) || strings.HasPrefix(args[i+1], "-")) {
			out = append(out, "--resume="+latestSession)
			continue
		}
		out = append(out, a)
	}
	print, first := false, ""
	fs := root.Flags()
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			first = a
			break
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
	if print && first != "" {
		for _, c := range root.Commands() {
			if c.Name() == first || c.HasAlias(first) {
				return out, true
			}
		}
	}
	return out, false
}
