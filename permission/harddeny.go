package permission

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/shell"
)

// HardDeny reports a line that is refused whatever the rules and the mode, bypass
// included: it destroys the system or the user's files beyond repair (rm -rf /,
// mkfs, dd to a disk, fork bombs, chmod -R on /, shutdown, ...). It judges the parsed
// commands, so every spelling counts: quoted, escaped, behind sudo or other wrappers,
// inside bash -c or $(...).
func HardDeny(a shell.Analysis) (reason string, ok bool) {
	for _, f := range a.Functions {
		if f.SelfCalls >= 2 && f.Forks {
			return fmt.Sprintf("fork bomb: function %s calls itself more than once in the background or a pipeline (%s)",
				f.Name, textcut.Bytes(f.Text, maxQuote, "…")), true
		}
	}
	for _, c := range a.Commands {
		if why := hardDenyCommand(c); why != "" {
			via := ""
			if slices.Contains(c.Wrappers, "sudo") || slices.Contains(c.Wrappers, "doas") {
				via = " as root"
			}
			return fmt.Sprintf("%s%s: %s", why, via, textcut.Bytes(c.Text, maxQuote, "…")), true
		}
	}
	return "", false
}

// maxQuote bounds the command text quoted in a reason, in bytes.
const maxQuote = 200

func hardDenyCommand(c shell.Command) string {
	for _, r := range c.Redirects {
		if r.WritesFile() && !r.Dynamic && isDiskDevice(r.Target) {
			return "writes over the disk device " + r.Target
		}
	}
	if len(c.Argv) == 0 {
		return ""
	}
	name := path.Base(c.Argv[0])
	args := c.Argv[1:]
	switch {
	case name == "rm":
		if hasFlag(name, args, "rR", "--recursive") {
			if t := catastrophicOperand(c, operands(args)); t != "" {
				return "rm -r of " + t
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp":
		if hasFlag(name, args, "R", "--recursive") {
			if t := catastrophicOperand(c, operands(args)); t != "" {
				return name + " -R on " + t
			}
		}
	case name == "mkfs" || strings.HasPrefix(name, "mkfs.") || name == "mke2fs" || name == "mkdosfs" || name == "mkntfs":
		return "makes a file system (" + name + ")"
	case name == "dd":
		for _, a := range args {
			if of, ok := strings.CutPrefix(a, "of="); ok && isDiskDevice(of) {
				return "dd writes over the disk device " + of
			}
		}
	case name == "shred" || name == "wipefs" || name == "tee" || name == "cp" || name == "mv" ||
		name == "mkswap" || name == "blkdiscard" || name == "sgdisk" || name == "sfdisk" ||
		name == "fdisk" || name == "parted" || name == "cat" || name == "pv":
		if name == "fdisk" || name == "parted" || name == "sfdisk" || name == "sgdisk" {
			if slices.ContainsFunc(args, func(a string) bool {
				return a == "-l" || a == "--list" || a == "print" || a == "-p" || a == "--print"
			}) {
				return ""
			}
		}
		if name == "cat" || name == "pv" {
			return "" // reading a disk is not destroying it
		}
		for _, a := range operands(args) {
			if isDiskDevice(a) {
				return name + " writes to the disk device " + a
			}
		}
	case name == "shutdown" || name == "reboot" || name == "halt" || name == "poweroff":
		return "stops the machine (" + name + ")"
	case name == "init" || name == "telinit":
		if len(args) > 0 && (args[0] == "0" || args[0] == "6") {
			return "stops the machine (" + name + " " + args[0] + ")"
		}
	case name == "systemctl":
		for _, a := range args {
			switch a {
			case "poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "soft-reboot":
				return "stops the machine (systemctl " + a + ")"
			}
		}
	case name == "kill":
		if killsEverything(args) {
			return "kill -1 kills every process the user may signal"
		}
	case name == "find":
		if findDestroysTree(c, args) {
			return "find deletes below " + args[0]
		}
	}
	return ""
}

// hasFlag reports a short flag among letters (in any cluster like -rf or -fr) or the
// long flag (or a prefix the program takes for it, --rec), before "--".
func hasFlag(program string, args []string, letters, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") {
			if o, _ := shell.ProgramLong(program, a, long); o.Is(long) {
				return true
			}
			continue
		}
		if len(a) > 1 && a[0] == '-' && strings.ContainsAny(a[1:], letters) {
			return true
		}
	}
	return false
}

// operands are the arguments that are not options; GNU tools take options anywhere
// before "--".
func operands(args []string) []string {
	var out []string
	ended := false
	for _, a := range args {
		if !ended && a == "--" {
			ended = true
			continue
		}
		if !ended && len(a) > 1 && a[0] == '-' {
			continue
		}
		out = append(out, a)
	}
	return out
}

// catastrophicOperand returns the first operand that names the root, a top-level or
// system folder, a home folder or everything above the working folder, from any of the
// folders the command may run in.
func catastrophicOperand(c shell.Command, ops []string) string {
	dirs := []string{c.Dir}
	if c.DirUnknown {
		dirs = c.Dirs
	}
	for _, o := range ops {
		if strings.HasPrefix(o, "/") || strings.HasPrefix(o, "~") || strings.HasPrefix(o, "$") {
			if catastrophicPath(o) {
				return o
			}
			continue
		}
		for _, d := range dirs {
			p, ok := shell.JoinDir(d, o)
			if !ok {
				continue
			}
			if p == "" {
				p = "."
			}
			if catastrophicPath(p) {
				return o
			}
		}
	}
	return ""
}

var homeParam = regexp.MustCompile(`^\$\{HOME(:?[-=?+][^}]*)?\}`)

// catastrophicPath reports a path whose removal (or recursive chmod/chown) wrecks the
// system or a home: /, /*, /etc, /usr/lib, /home/x, ~, ~/, ~/*, $HOME, .., ../*.
func catastrophicPath(p string) bool {
	p = strings.TrimSpace(p)
	if p == "" {
		return false
	}
	p = homeParam.ReplaceAllString(p, "$$HOME")
	if rest, ok := strings.CutPrefix(p, "$HOME"); ok && (rest == "" || rest[0] == '/') {
		p = "~" + rest
	}
	if strings.HasPrefix(p, "~") {
		_, rest, _ := strings.Cut(p, "/")
		if hasDotDot(rest) {
			return true
		}
		comps := components(path.Clean("/" + rest))
		return len(comps) == 0 || (len(comps) == 1 && hasGlobChar(comps[0]))
	}
	if strings.HasPrefix(p, "/") {
		comps := components(path.Clean(p))
		switch len(comps) {
		case 0, 1:
			return true
		case 2:
			switch comps[0] {
			case "home", "Users", "usr", "root":
				return true
			case "tmp":
				return false
			}
			return hasGlobChar(comps[1])
		}
		return false
	}
	comps := components(path.Clean(p))
	if len(comps) == 0 || comps[0] != ".." {
		return false
	}
	for i, s := range comps {
		if s != ".." && !(i == len(comps)-1 && hasGlobChar(s)) {
			return false
		}
	}
	return true
}

func components(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

func hasDotDot(p string) bool { return slices.Contains(strings.Split(p, "/"), "..") }

func hasGlobChar(s string) bool { return strings.ContainsAny(s, "*?[") }

// diskDevices are the /dev names of disks, partitions and memory, written only to
// destroy what they hold.
var diskDevices = []string{
	"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "mapper/", "md", "dm-",
	"loop", "sr", "nbd", "mem", "kmem", "port", "root", "zd", "bcache",
}

func isDiskDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") && !strings.HasPrefix(p, "//dev/") {
		return false
	}
	rest := strings.TrimPrefix(path.Clean(p), "/dev/")
	for _, d := range diskDevices {
		if strings.HasPrefix(rest, d) {
			return true
		}
	}
	return false
}

// killsEverything reports kill with the pid -1 (every process the user may signal).
func killsEverything(args []string) bool {
	i := 0
	if i < len(args) && (args[i] == "-s" || args[i] == "-n") {
		i += 2
	} else if i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" && args[i] != "-1" {
		i++ // the signal: -9, -KILL, -SIGKILL
	} else if i < len(args) && args[i] == "-1" && len(args) > 1 {
		i++ // kill -1 PID: -1 is the signal (HUP)
	}
	for ; i < len(args); i++ {
		if args[i] == "--" {
			continue
		}
		if args[i] == "-1" {
			return true
		}
	}
	return false
}

// findDestroysTree reports find on a catastrophic start path with -delete or an -exec
// of rm.
func findDestroysTree(c shell.Command, args []string) bool {
	var starts []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		starts = append(starts, a)
	}
	if catastrophicOperand(c, starts) == "" {
		return false
	}
	for i, a := range args {
		switch a {
		case "-delete":
			return true
		case "-exec", "-execdir", "-ok", "-okdir":
			if i+1 < len(args) {
				switch path.Base(args[i+1]) {
				case "rm", "shred", "unlink":
					return true
				}
			}
		}
	}
	return false
}
